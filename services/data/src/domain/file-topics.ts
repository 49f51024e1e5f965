import { createHash } from "node:crypto";
import { invalidArgument, quoteValue } from "@hangar/shared";
import { checkNonEmpty, checkOneOf, CANONICAL_DATA_TYPES, STORAGE_FORMATS } from "./topics";

/** A timeline source of a topic: where its timestamps come from. */
export interface TimelineSourceRow {
  timelineSourceId: string;
  topicId: string;
  orgId: string;
  name: string;
  /** `field`, `message_log_time` or `message_publish_time`. */
  kind: string;
  fieldPath: string[];
  isDefaultForReads: boolean;
}

/** The span of one timeline source over one part (a file's slice) of a topic's data. */
export interface TimelineExtentRow {
  timelineExtentId: string;
  timelineSourceId: string;
  topicPartId: string;
  fileId: string;
  dataRange: [bigint, bigint] | null;
  orgId: string;
  minTimestamp: bigint | null;
  maxTimestamp: bigint | null;
  unixEpochOffsetNs: bigint;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** An extent on a file with what selectors match on: its topic and source. */
export interface FileExtent extends TimelineExtentRow {
  topicId: string;
  topicName: string;
  sourceName: string;
  sourceKind: string;
}

/** The timelines of file topics. Each method is one statement. */
export interface TimelineRepository {
  /** Stores sources by topic and name (an existing one is updated and keeps its id); returns them in order with their stored ids. */
  upsertSources(rows: readonly TimelineSourceRow[]): Promise<TimelineSourceRow[]>;
  /** Makes each of `keep` the only default-for-reads source of its topic. */
  setDefaults(keep: readonly TimelineSourceRow[]): Promise<void>;
  /** Stores extents by source and part (an existing one keeps its id; bounds and offset are rewritten). */
  upsertExtents(rows: readonly TimelineExtentRow[]): Promise<void>;
  /** The extents on a file of the org, with their topics and sources. */
  extentsOfFile(orgId: string, fileId: string): Promise<FileExtent[]>;
  /** Sets the offsets of these extents. */
  setOffsets(extents: readonly Pick<TimelineExtentRow, "timelineExtentId" | "unixEpochOffsetNs" | "modified" | "modifiedBy">[]): Promise<void>;
  /** Sets each topic's start and end time to the bounds of its extents in session time (stored time plus offset). */
  recomputeTopicBounds(topicIds: readonly string[]): Promise<void>;
}

/** A field of a declared schema. */
export interface DeclaredField {
  path: string[];
  dataType: string;
  canonicalDataType: string;
}

/** A timeline source as a declaration states it. */
export interface DeclaredSource {
  kind: string;
  minFileTimestampNs: bigint;
  maxFileTimestampNs: bigint;
  isDefaultForReads: boolean | undefined;
  fieldPath: string[];
}

/** A representation as a declaration lists it. */
export interface DeclaredRepresentation {
  fileId: string;
  storageFormat: string;
  contentFormat: string | undefined;
  transformations: string[];
  fieldPath: string[];
}

/** One topic a file carries, as register_file_topics declares it (checked by `checkDeclaration`). */
export interface TopicDeclaration {
  topicName: string;
  schemaName: string | undefined;
  fields: DeclaredField[];
  sources: DeclaredSource[];
  dataRange: [bigint, bigint] | null;
  representations: DeclaredRepresentation[];
  anchorNs: bigint | null;
}

/** How each declared kind is stored: the stored kind and the source's name (SDK 0.62's table). */
const ENVELOPE_SOURCES: Record<string, [kind: string, name: string]> = {
  mcap_log_time: ["message_log_time", "message_log_time"],
  mcap_publish_time: ["message_publish_time", "message_publish_time"],
  mp4_presentation_time: ["message_log_time", "presentation_time"],
};

/** Stored kinds whose timestamps sit in a message envelope, which a parquet file cannot carry. */
export const ENVELOPE_KINDS: ReadonlySet<string> = new Set(["message_log_time", "message_publish_time"]);

/** The stored kind and name of a declared source. */
export function storedSource(source: DeclaredSource): { kind: string; name: string } {
  if (source.kind === "field") return { kind: "field", name: source.fieldPath.join(".") };
  const [kind, name] = ENVELOPE_SOURCES[source.kind]!;
  return { kind, name };
}

/** Checks one declaration's shape; every problem is a 400 naming the field under `at`. */
export function checkDeclaration(d: TopicDeclaration, at: string): void {
  checkNonEmpty(d.topicName, `${at}.topic_name`);
  if (d.fields.length === 0) throw invalidArgument(`${at}.topic_schema.fields`, "must list at least one field");
  const paths = new Set<string>();
  d.fields.forEach((f, i) => {
    if (f.path.length === 0 || f.path.some((p) => p === "")) throw invalidArgument(`${at}.topic_schema.fields[${i}].path`, "must name the field");
    checkNonEmpty(f.dataType, `${at}.topic_schema.fields[${i}].data_type`);
    checkOneOf(f.canonicalDataType, CANONICAL_DATA_TYPES, `${at}.topic_schema.fields[${i}].canonical_data_type`);
    const key = f.path.join(".");
    if (paths.has(key)) throw invalidArgument(`${at}.topic_schema.fields[${i}].path`, `${quoteValue(key)} is listed twice`);
    paths.add(key);
  });
  if (d.sources.length === 0) throw invalidArgument(`${at}.timeline_sources`, "must list at least one source");
  d.sources.forEach((s, i) => checkSource(s, `${at}.timeline_sources[${i}]`, paths));
  if (d.sources.filter((s) => s.isDefaultForReads).length > 1) throw invalidArgument(`${at}.timeline_sources`, "at most one source may be the default for reads");
  if (new Set(d.sources.map((s) => storedSource(s).name)).size < d.sources.length) throw invalidArgument(`${at}.timeline_sources`, "two sources share a name");
  d.representations.forEach((r, i) => {
    checkNonEmpty(r.fileId, `${at}.representations[${i}].file_id`);
    checkOneOf(r.storageFormat, STORAGE_FORMATS, `${at}.representations[${i}].storage_format`);
  });
}

function checkSource(s: DeclaredSource, at: string, paths: ReadonlySet<string>): void {
  if (s.kind !== "field" && !(s.kind in ENVELOPE_SOURCES)) {
    throw invalidArgument(`${at}.kind`, `${quoteValue(s.kind)} is not one of field, ${Object.keys(ENVELOPE_SOURCES).join(", ")}`);
  }
  if (s.kind === "field" && !paths.has(s.fieldPath.join("."))) throw invalidArgument(`${at}.field_path`, "must name a field of the topic's schema");
  if (s.minFileTimestampNs < 0n) throw invalidArgument(`${at}.min_file_timestamp_ns`, "must not be negative");
  if (s.minFileTimestampNs > s.maxFileTimestampNs) throw invalidArgument(`${at}.min_file_timestamp_ns`, "must not exceed max_file_timestamp_ns");
}

/** Checks a `[start, end)` data range: two positions, `0 <= start < end`. */
export function checkDataRange(range: readonly bigint[], field: string): [bigint, bigint] | null {
  if (range.length === 0) return null;
  const [start, end] = range;
  if (range.length !== 2 || start! < 0n || end! <= start!) throw invalidArgument(field, "must be [start, end) with 0 <= start < end");
  return [start!, end!];
}

/**
 * The id of one part of a topic's data: the topic over one slice of one file. Derived from the
 * three, so re-declaring the same slice finds the same part (idempotent registration).
 */
export function topicPartId(topicId: string, fileId: string, range: [bigint, bigint] | null): string {
  const digest = createHash("sha256").update(`${topicId}\0${fileId}\0${range ? range.join("-") : "*"}`).digest("hex");
  return `tpp_${digest.slice(0, 24)}`;
}

/** A schema's checksum: stable over the fields' paths and types, so equal schemas get equal checksums. */
export function schemaChecksum(fields: readonly DeclaredField[]): string {
  const canonical = fields.map((f) => [f.path, f.dataType, f.canonicalDataType]);
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}
