import { toJson, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import type { SessionFileViewSchema, SessionIngestionStatusSchema, SessionIngestionSummarySchema, SessionSchema, SessionTopicSchema } from "@hangar/shared/proto/data";
import type { SessionIngestion } from "../domain/session-ingestion";
import type { SessionFileInput } from "../domain/session-files";
import { checkCompletionPolicy, type SessionFileEntry, type SessionRecord } from "../domain/sessions";
import type { SessionTopicRow } from "../domain/session-topics";
import type { TimeValue } from "@hangar/shared/proto/common";
import { timeInputOf } from "./mappers";

/** A session to its wire record. */
export function sessionToProto(row: SessionRecord): MessageInitShape<typeof SessionSchema> {
  return {
    sessionId: row.sessionId,
    orgId: row.orgId,
    ...(row.name !== null ? { name: row.name } : {}),
    ...(row.description !== null ? { description: row.description } : {}),
    metadata: row.metadata,
    customFields: row.customFields,
    tags: row.tags,
    created: timestampFromDate(row.created),
    createdBy: row.createdBy,
    modified: timestampFromDate(row.modified),
    modifiedBy: row.modifiedBy,
    ...(row.minTimestampNs !== null ? { minTimestampNs: row.minTimestampNs } : {}),
    ...(row.maxTimestampNs !== null ? { maxTimestampNs: row.maxTimestampNs } : {}),
    status: row.status,
    ...(row.inactivityMinutes !== null ? { completionPolicy: { inactivityMinutes: BigInt(row.inactivityMinutes) } } : {}),
    ...(row.completedAt !== null ? { completedAt: timestampFromDate(row.completedAt) } : {}),
    ...(row.completedBy !== null ? { completedBy: row.completedBy } : {}),
    ...(row.completesAt !== null ? { completesAt: timestampFromDate(row.completesAt) } : {}),
    ...(row.ingestedAt !== null ? { ingestedAt: timestampFromDate(row.ingestedAt) } : {}),
    ingestionCount: BigInt(row.ingestionCount),
  };
}

/**
 * A session's file to its wire view: the window in wall-clock time (file time plus the anchor)
 * under both its names, the slice as `[start, end]` or null.
 */
export function sessionFileToProto(entry: SessionFileEntry): MessageInitShape<typeof SessionFileViewSchema> {
  const shift = entry.unixEpochOffsetNs ?? 0n;
  const wallClock = entry.window ? { min: entry.window[0] + shift, max: entry.window[1] + shift } : null;
  return {
    fileId: entry.fileId,
    ...(entry.datasetId !== null ? { datasetId: entry.datasetId } : {}),
    name: entry.name,
    origination: entry.origination,
    relativePath: entry.relativePath,
    size: entry.size,
    tags: entry.tags,
    created: timestampFromDate(entry.fileCreated),
    modified: timestampFromDate(entry.fileModified),
    ...(wallClock ? { minWallClockTimestampNs: wallClock.min, maxWallClockTimestampNs: wallClock.max, rangeMinTimestampNs: wallClock.min, rangeMaxTimestampNs: wallClock.max } : {}),
    ...(entry.dataRange ? { dataRange: { values: entry.dataRange.map((n) => ({ kind: { case: "numberValue" as const, value: Number(n) } })) } } : {}),
    ...(entry.unixEpochOffsetNs !== null ? { unixEpochOffsetNs: entry.unixEpochOffsetNs } : {}),
    ingestable: entry.ingestionStatus !== "not_ingested",
    ingestionStatus: entry.ingestionStatus,
  };
}

/** A session's ingestion status to its wire record. */
export function ingestionToProto(ingestion: SessionIngestion): MessageInitShape<typeof SessionIngestionStatusSchema> {
  return {
    ...countsOf(ingestion),
    ingestionCount: BigInt(ingestion.ingestionCount),
    pendingFiles: ingestion.pending.map((f) => ({ fileId: f.fileId, relativePath: f.relativePath, ingestionStatus: f.ingestionStatus, uploaded: timestampFromDate(f.fileCreated) })),
    skippedFiles: ingestion.skipped.map((f) => ({
      fileId: f.fileId,
      relativePath: f.relativePath,
      ...(f.skippedAt ? { skippedAt: timestampFromDate(f.skippedAt) } : {}),
      ...(f.skippedBy !== null ? { skippedBy: f.skippedBy } : {}),
    })),
  };
}

/** The counts of a session's ingestion status. */
export function summaryToProto(ingestion: SessionIngestion): MessageInitShape<typeof SessionIngestionSummarySchema> {
  return countsOf(ingestion);
}

function countsOf(ingestion: SessionIngestion) {
  return {
    sessionId: ingestion.sessionId,
    state: ingestion.state,
    ingestedFileCount: BigInt(ingestion.ingestedCount),
    pendingFileCount: BigInt(ingestion.pendingCount),
    notIngestableFileCount: BigInt(ingestion.notIngestableCount),
    skippedFileCount: BigInt(ingestion.skippedCount),
    failedFileCount: BigInt(ingestion.failedCount),
  };
}

/** A completion policy as a request carries it (a JSON value): undefined when omitted, null to have none. */
export function completionPolicyOf(value: Value | undefined, field: string): number | null | undefined {
  if (value === undefined) return undefined;
  return checkCompletionPolicy(toJson(ValueSchema, value), field);
}

/** A session file declaration of a request to the domain's input. */
export function sessionFileInputOf(file: {
  fileId: string;
  dataRange: bigint[];
  anchorNs?: TimeValue | undefined;
  topics?: { values: unknown[] } | undefined;
  minFileTimestampNs?: bigint | undefined;
  maxFileTimestampNs?: bigint | undefined;
  rangeMinTimestampNs?: bigint | undefined;
  rangeMaxTimestampNs?: bigint | undefined;
}): SessionFileInput {
  return {
    fileId: file.fileId,
    dataRange: file.dataRange,
    anchorNs: timeInputOf(file.anchorNs),
    topicCount: file.topics?.values.length ?? 0,
    minFileTimestampNs: file.minFileTimestampNs,
    maxFileTimestampNs: file.maxFileTimestampNs,
    rangeMinTimestampNs: file.rangeMinTimestampNs,
    rangeMaxTimestampNs: file.rangeMaxTimestampNs,
  };
}

/** A session topic to its wire record (the SDK's TopicIdentityRecord). */
export function sessionTopicToProto(row: SessionTopicRow): MessageInitShape<typeof SessionTopicSchema> {
  return {
    topicId: row.topicId,
    name: row.name,
    orgId: row.orgId,
    created: timestampFromDate(row.created),
    createdBy: row.createdBy,
    modified: timestampFromDate(row.modified),
    modifiedBy: row.modifiedBy,
  };
}
