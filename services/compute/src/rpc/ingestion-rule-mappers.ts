import { create, fromJson, toJson, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import {
  IngestionRuleSchema,
  type DefaultIngestionRuleSchema,
  type ExistingFilesPreviewSchema,
  type IngestFileResultSchema,
  type IngestionRunSchema,
} from "@hangar/shared/proto/compute";
import type { ExistingFilesReport } from "../domain/existing-files";
import type { DefaultRule } from "../domain/ingestion-rule-defaults";
import type { IngestionRuleRecord } from "../domain/ingestion-rule-records";
import type { IngestFileResult, IngestionRun } from "../domain/ingestion-runs";

/** A rule to its wire record (the SDK's IngestionRuleRecord). */
export function ruleToProto(rule: IngestionRuleRecord): MessageInitShape<typeof IngestionRuleSchema> {
  return {
    ruleId: rule.ruleId,
    orgId: rule.orgId,
    name: rule.name,
    ...(rule.description !== null ? { description: rule.description } : {}),
    includePatterns: rule.includePatterns,
    excludePatterns: rule.excludePatterns,
    invocation: fromJson(ValueSchema, rule.invocation),
    autoIngest: rule.autoIngest,
    ...(rule.triggerId !== null ? { triggerId: rule.triggerId } : {}),
    created: timestampFromDate(rule.created),
    createdBy: rule.createdBy,
    modified: timestampFromDate(rule.modified),
    modifiedBy: rule.modifiedBy,
  };
}

/** A rule as the JSON match_paths lists it under a path: the wire record, its nullable keys null when unset. */
export function ruleJson(rule: IngestionRuleRecord): JsonObject {
  const json = toJson(IngestionRuleSchema, create(IngestionRuleSchema, ruleToProto(rule)), { useProtoFieldName: true, alwaysEmitImplicit: true }) as JsonObject;
  return { ...json, description: rule.description, trigger_id: rule.triggerId };
}

/** A default rule with its presence in the org (the SDK's DefaultIngestionRuleRecord). */
export function defaultToProto(rule: DefaultRule & { alreadyPresent: boolean }): MessageInitShape<typeof DefaultIngestionRuleSchema> {
  return {
    name: rule.name,
    category: rule.category,
    includePatterns: rule.includePatterns,
    excludePatterns: rule.excludePatterns,
    invocation: fromJson(ValueSchema, rule.invocation),
    alreadyPresent: rule.alreadyPresent,
    forNewOrgs: rule.forNewOrgs,
    needsSettings: rule.needsSettings,
  };
}

/** The existing-files report to its wire record (the SDK's ExistingFilesPreview). */
export function reportToProto(report: ExistingFilesReport): MessageInitShape<typeof ExistingFilesPreviewSchema> {
  return {
    count: BigInt(report.count),
    countIsLowerBound: report.countIsLowerBound,
    samplePaths: report.samplePaths,
    completeSessionCount: BigInt(report.completeSessionCount),
  };
}

/** One ingest_files_now result (the SDK's IngestFileResult). */
export function ingestResultToProto(result: IngestFileResult): MessageInitShape<typeof IngestFileResultSchema> {
  return {
    fileId: result.fileId,
    outcome: result.outcome,
    ...(result.ruleId !== null ? { ruleId: result.ruleId } : {}),
    ...(result.invocationId !== null ? { invocationId: result.invocationId } : {}),
  };
}

/** A run to its wire record (the SDK's IngestionRun). */
export function runToProto(run: IngestionRun): MessageInitShape<typeof IngestionRunSchema> {
  return {
    fileId: run.fileId,
    ruleId: run.ruleId,
    triggerId: run.triggerId,
    started: timestampFromDate(run.started),
    status: run.status,
    ...(run.invocationId !== null ? { invocationId: run.invocationId } : {}),
    ...(run.detail !== null ? { detail: run.detail } : {}),
  };
}
