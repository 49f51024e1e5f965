import type { JsonObject } from "@bufbuild/protobuf";
import { invalidArgument, quoteValue } from "@hangar/shared";
import type { ListedPage, ListedRange } from "./devices";

/** What a topic or a representation belongs to. `version` pins a file version when given. */
export interface TopicAssociationRef {
  associationType: string;
  associationId: string;
  associationVersion: bigint | null;
}

/** A topic row, without its message paths and representations. */
export interface TopicRow extends TopicAssociationRef {
  topicId: string;
  orgId: string;
  topicName: string;
  schemaName: string | null;
  schemaChecksum: string | null;
  schemaId: string | null;
  startTime: bigint | null;
  endTime: bigint | null;
  messageCount: bigint | null;
  metadata: JsonObject;
  defaultRepresentationId: string | null;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** A message path row. */
export interface MessagePathRow {
  messagePathId: string;
  topicId: string;
  orgId: string;
  messagePath: string;
  sourcePath: string;
  pathInSchema: string[];
  dataType: string;
  canonicalDataType: string;
  metadata: JsonObject;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** A representation row with the message paths it holds. */
export interface RepresentationRow extends TopicAssociationRef {
  representationId: string;
  topicId: string;
  orgId: string;
  storageFormat: string;
  version: bigint;
  format: string | null;
  transformations: string[];
  created: Date;
  modified: Date;
  messagePathIds: string[];
}

/** A topic as reads return it: its row, its message paths and its representations (oldest first). */
export interface TopicView {
  topic: TopicRow;
  messagePaths: MessagePathRow[];
  representations: RepresentationRow[];
}

/** The topics a view read takes: by ids, or one association's topic by name. */
export type TopicSelector = { topicIds: readonly string[] } | { associationId: string; topicName: string };

/** Earliest start and latest end over some topics; null when none has one. */
export interface TimeBounds {
  startTime: bigint | null;
  endTime: bigint | null;
}

/**
 * The topics of the data service's database, with their message paths and representations. Every
 * read takes the org, so another org's rows are never found. Batch reads are one query each.
 */
export interface TopicRepository {
  /** A topic of the org by id; with `lock` (in a transaction) it stays locked until the end. */
  byId(orgId: string, topicId: string, lock?: boolean): Promise<TopicRow | null>;
  /** A topic of the org by association and name. */
  byName(orgId: string, associationId: string, topicName: string, lock?: boolean): Promise<TopicRow | null>;
  /** The topics of an association with these names (one query). */
  byNames(orgId: string, associationId: string, names: readonly string[], lock?: boolean): Promise<TopicRow[]>;
  /** Inserts a topic; false when the association already has a topic of that name. */
  insert(row: TopicRow): Promise<boolean>;
  /** Writes a topic's row back. */
  update(row: TopicRow): Promise<void>;
  /** Inserts or rewrites these topics by id (one query); false when a new one's name is taken on its association. */
  saveAll(rows: readonly TopicRow[]): Promise<boolean>;
  remove(topicId: string): Promise<void>;
  /**
   * One page of an association's topics as views, newest first, with their number: one statement
   * (the page, each topic's paths and representations, the count).
   */
  list(orgId: string, associationId: string, range: ListedRange): Promise<ListedPage<TopicView>>;
  /** The number of an association's topics. */
  count(orgId: string, associationId: string): Promise<number>;
  /** The org's topics a selector names, as views (one statement), in `topicIds` order when given. */
  views(orgId: string, which: TopicSelector): Promise<TopicView[]>;
  /** The bounds of an association's topics. */
  timeBounds(orgId: string, associationId: string): Promise<TimeBounds>;
  /** The message paths of these topics, oldest first (one query). */
  messagePaths(topicIds: readonly string[]): Promise<MessagePathRow[]>;
  /** The representations of these topics, oldest first, each with its message path ids (one query). */
  representations(topicIds: readonly string[]): Promise<RepresentationRow[]>;
  /** A message path of the org by id. */
  messagePathById(orgId: string, messagePathId: string): Promise<MessagePathRow | null>;
  /** Inserts message paths (one query); false when one of them already exists on its topic. */
  insertMessagePaths(rows: readonly MessagePathRow[]): Promise<boolean>;
  updateMessagePath(row: MessagePathRow): Promise<void>;
  /** Deletes a topic's message paths by name, or all of them (one query). */
  deleteMessagePaths(topicId: string, paths: readonly string[] | "all"): Promise<void>;
  /** Adds message path links to an existing representation. */
  linkRepresentation(representationId: string, messagePathIds: readonly string[]): Promise<void>;
  /** Inserts representations with their message path links (two queries whatever the count). */
  insertRepresentations(rows: readonly RepresentationRow[]): Promise<void>;
  /** Deletes every representation of these topics (one query). */
  deleteRepresentationsOf(topicIds: readonly string[]): Promise<void>;
}

/** Storage formats a representation may have. */
export const STORAGE_FORMATS: ReadonlySet<string> = new Set(["mcap", "parquet"]);

/** Canonical data types of message paths (overview.md). */
export const CANONICAL_DATA_TYPES: ReadonlySet<string> = new Set([
  "array",
  "boolean",
  "byte",
  "categorical",
  "image",
  "number",
  "number_array",
  "object",
  "string",
  "timestamp",
  "unknown",
  "latdegfloat",
  "londegfloat",
  "latdegint",
  "londegint",
]);

/** Checks a value against a closed set, naming `field` in the 400. */
export function checkOneOf(value: string, allowed: ReadonlySet<string>, field: string): string {
  if (!allowed.has(value)) throw invalidArgument(field, `${quoteValue(value)} is not one of ${[...allowed].join(", ")}`);
  return value;
}

/** Checks a text field is present. */
export function checkNonEmpty(value: string, field: string): string {
  if (value.length === 0) throw invalidArgument(field, "is required");
  return value;
}

const PREFIX_TYPES: [string, string][] = [
  ["ds_", "dataset"],
  ["fl_", "file"],
];

/** Association types topics can belong to. */
export const TOPIC_ASSOCIATION_TYPES: ReadonlySet<string> = new Set(PREFIX_TYPES.map(([, type]) => type));

/**
 * The association a request names: a declared type (checked) or, when empty, the one the id's
 * prefix gives (`ds_` dataset, `fl_` file).
 */
export function topicAssociationOf(input: { associationId: string; associationType: string; associationVersion?: bigint | undefined }, field: string): TopicAssociationRef {
  checkNonEmpty(input.associationId, `${field}.association_id`);
  const type = input.associationType || PREFIX_TYPES.find(([prefix]) => input.associationId.startsWith(prefix))?.[1];
  if (!type) throw invalidArgument(`${field}.association_type`, "is required for an id without a known prefix");
  checkOneOf(type, TOPIC_ASSOCIATION_TYPES, `${field}.association_type`);
  return { associationType: type, associationId: input.associationId, associationVersion: input.associationVersion ?? null };
}

/** Parses an encoded association (`type:id[:version]`, e.g. `dataset:ds_abc`), naming `field` in a 400. */
export function decodeAssociation(encoded: string, field: string): TopicAssociationRef {
  const [type = "", id = "", version, ...rest] = encoded.split(":");
  if (id === "" || rest.length > 0) throw invalidArgument(field, "expected 'type:id' or 'type:id:version'");
  if (version !== undefined && !/^\d{1,18}$/.test(version)) throw invalidArgument(field, "the version must be a non-negative integer");
  return topicAssociationOf({ associationType: type, associationId: id, associationVersion: version === undefined ? undefined : BigInt(version) }, field);
}
