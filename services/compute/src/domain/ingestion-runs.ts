import { invalidArgument, newId, type UnitOfWork } from "@hangar/shared";
import { fireTrigger, type FiringDeps } from "./fire-triggers";
import type { IngestionRuleRecord, RuleRunRow } from "./ingestion-rule-records";
import { rulePathMatches } from "./ingestion-rule-paths";
import { InvocationStatus } from "./invocation-status";
import type { PlatformEvent } from "./platform-events";
import type { IngestionRuleRepositories } from "./repositories";
import { eventNamespace, type EntityReader } from "./trigger-dry-run";
import type { GateReaders } from "./trigger-gates";

/** Most files one ingest_files_now takes (the SDK's MAX_INGEST_FILES). */
export const MAX_INGEST_FILES = 100;
/** Most files one latest_runs asks about, and most paths one match_paths (the SDK's MAX_MATCH_PATHS). */
export const MAX_MATCH_PATHS = 200;

/** The latest run of a rule's trigger on a file (the SDK's IngestionRun). */
export interface IngestionRun {
  fileId: string;
  ruleId: string;
  triggerId: string;
  started: Date;
  status: "running" | "failed" | "finished";
  invocationId: string | null;
  detail: string | null;
}

/**
 * A run from its dispatch and invocation: a dispatch that could not start the action failed with
 * its reason; otherwise the invocation says (Completed: finished; Failed, Cancelled, Deadly:
 * failed with the last status detail; anything else: running).
 */
export function runOf(row: RuleRunRow): IngestionRun {
  const base = { fileId: row.fileId, ruleId: row.ruleId, triggerId: row.triggerId, started: row.claimedAt, invocationId: row.invocationId };
  if (row.dispatchStatus === "failed") return { ...base, status: "failed", detail: row.dispatchDetail };
  const status = row.invocationStatus;
  if (status === InvocationStatus.Completed) return { ...base, status: "finished", detail: null };
  if (status === InvocationStatus.Failed || status === InvocationStatus.Cancelled || status === InvocationStatus.Deadly) return { ...base, status: "failed", detail: row.invocationDetail };
  return { ...base, status: "running", detail: null };
}

/** latest_runs: the latest run per file of the org (1 to MAX_MATCH_PATHS ids); other orgs' files, and files with none, are absent. */
export async function latestRuns(uow: UnitOfWork<IngestionRuleRepositories>, orgId: string | undefined, fileIds: string[]): Promise<IngestionRun[]> {
  checkCount(fileIds, "file_ids", MAX_MATCH_PATHS);
  if (!orgId) return [];
  return (await uow.repositories().ingestionRules.latestRuns(orgId, [...new Set(fileIds)])).map(runOf);
}

/** Checks an id list's size: 1 to `max` entries. */
export function checkCount(ids: readonly string[], field: string, max: number): void {
  if (ids.length === 0) throw invalidArgument(field, "must list at least one entry");
  if (ids.length > max) throw invalidArgument(field, `must list at most ${max} entries`);
}

/** What ingest_files_now did with one file (the SDK's IngestFileResult). */
export interface IngestFileResult {
  fileId: string;
  outcome: "started" | "already_running" | "no_matching_rule" | "auto_ingest_off" | "not_started" | "not_found";
  ruleId: string | null;
  invocationId: string | null;
}

/** What running a rule's trigger by hand needs: firing, the records namespaces read, the gates' file checks. */
export interface RuleFiringDeps extends FiringDeps {
  uow: UnitOfWork<IngestionRuleRepositories>;
  entities: EntityReader;
  gatesFor: (orgId: string) => GateReaders;
}

/**
 * ingest_files_now: runs, for each file (1 to MAX_INGEST_FILES, results in request order), the
 * trigger of the oldest matching rule that auto-ingests, as its upload would have: a dispatch of
 * that trigger, so the run shows in latest_runs. A file not in the caller's org or in no dataset
 * is `not_found` (nothing tells it from a missing one); a run still going is `already_running`.
 * A failed ingestion runs again this way.
 */
export async function ingestFilesNow(deps: RuleFiringDeps, orgId: string | undefined, fileIds: string[]): Promise<IngestFileResult[]> {
  checkCount(fileIds, "file_ids", MAX_INGEST_FILES);
  if (!orgId) return fileIds.map((fileId) => ({ fileId, outcome: "not_found", ruleId: null, invocationId: null }));
  const rules = await deps.uow.repositories().ingestionRules.ofOrg(orgId);
  const results: IngestFileResult[] = [];
  for (const fileId of fileIds) results.push(await ingestFile(deps, orgId, rules, fileId));
  return results;
}

/** Runs one file through the first matching rule that auto-ingests (see ingestFilesNow). */
export async function ingestFile(deps: RuleFiringDeps, orgId: string, rules: IngestionRuleRecord[], fileId: string): Promise<IngestFileResult> {
  const result = (outcome: IngestFileResult["outcome"], ruleId: string | null = null, invocationId: string | null = null) => ({ fileId, outcome, ruleId, invocationId });
  const file = await datasetFile(deps.entities, orgId, fileId);
  if (!file) return result("not_found");
  const matching = rules.filter((rule) => rulePathMatches(rule, file.relativePath));
  if (matching.length === 0) return result("no_matching_rule");
  const rule = matching.find((r) => r.autoIngest && r.triggerId !== null);
  if (!rule) return result("auto_ingest_off", matching[0]!.ruleId);
  const [latest] = await deps.uow.repositories().ingestionRules.latestRuns(orgId, [fileId]);
  if (latest && runOf(latest).status === "running") return result("already_running", latest.ruleId, latest.invocationId);
  const trigger = await deps.uow.repositories().triggerModel.findById(orgId, rule.triggerId!);
  if (!trigger) return result("not_started", rule.ruleId);
  const event: PlatformEvent = { id: newId("ingest"), type: "file.uploaded", time: new Date(), orgId, data: { dataset_id: file.datasetId, file_id: fileId, file_version: file.version } };
  const [dispatch] = await fireTrigger(deps, trigger, event, await eventNamespace(event, deps.entities), deps.gatesFor(orgId));
  if (!dispatch || dispatch.status !== "dispatched") return result("not_started", rule.ruleId);
  return result("started", rule.ruleId, dispatch.resultRef);
}

/** A file of the org that is in a dataset, or undefined. */
async function datasetFile(entities: EntityReader, orgId: string, fileId: string): Promise<{ relativePath: string; datasetId: string; version: number } | undefined> {
  const file = await entities.file(orgId, fileId);
  if (!file || file.status !== "available" || typeof file.association_id !== "string") return undefined;
  if (!(await entities.dataset(orgId, file.association_id))) return undefined;
  return { relativePath: String(file.relative_path), datasetId: file.association_id, version: Number(file.version) };
}
