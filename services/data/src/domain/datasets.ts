import type { JsonObject } from "@bufbuild/protobuf";
import {
  applyFieldChanges,
  applyTagChanges,
  invalidArgument,
  uniqueTags,
  type KeysetPageRows,
  type KeysetSearch,
  type MetadataChanges,
  type SqlFragment,
} from "@hangar/shared";

/** A dataset as the use cases see it; the store's entity has exactly this shape. */
export interface DatasetRecord {
  datasetId: string;
  orgId: string;
  name: string | null;
  description: string | null;
  deviceId: string | null;
  metadata: JsonObject;
  customFields: JsonObject;
  tags: string[];
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
  serviceRecordVersion: number;
}

/** One `{user, relation, obj}` permission tuple on a dataset, stored beyond the implicit owner and editor ones. */
export interface DatasetRelationRecord {
  datasetId: string;
  subject: string;
  relation: string;
}

/**
 * The datasets of the data service's database. Records returned by `find` and `firstMatch` are
 * tracked: changes made to them are written when the unit of work's transaction commits.
 */
export interface DatasetRepository {
  /** A dataset of the org; with `lock` (in a transaction) the row stays locked for update until it ends. */
  find(orgId: string, datasetId: string, lock?: boolean): Promise<DatasetRecord | null>;
  /** A dataset of the org, untracked: the hot path of get_dataset (a prepared statement). */
  read(orgId: string, datasetId: string): Promise<DatasetRecord | null>;
  /** Which of `datasetIds` are datasets of the org (one query). */
  existingIds(orgId: string, datasetIds: readonly string[]): Promise<Set<string>>;
  /** Inserts a new dataset (at once, in the caller's transaction). */
  insert(record: DatasetRecord): Promise<void>;
  remove(record: DatasetRecord): void;
  /** The stored permission tuples of a dataset, by relation then subject. */
  relations(datasetId: string): Promise<DatasetRelationRecord[]>;
  addRelation(record: DatasetRelationRecord): void;
  removeRelation(record: DatasetRelationRecord): Promise<void>;
  /** Removes every permission tuple of a dataset (it is being deleted). */
  removeRelations(datasetId: string): Promise<void>;
  /** One keyset page of the org's matches and their number (undefined above the count cap). */
  search(orgId: string, search: KeysetSearch): Promise<KeysetPageRows<DatasetRecord> & { total: number | undefined }>;
  /** The oldest dataset of the org matching a compiled condition. */
  firstMatch(orgId: string, where: SqlFragment): Promise<DatasetRecord | null>;
  /** Serialises creations that match the same query (`query`, a canonical text) in the org until the transaction ends. */
  lockQuery(orgId: string, query: string): Promise<void>;
  /** The distinct top-level metadata keys of the org's datasets, sorted. */
  metadataKeys(orgId: string): Promise<string[]>;
}

/** Validates tags from a request: non-empty strings, duplicates dropped. */
export function checkTags(tags: readonly string[], field = "tags"): string[] {
  tags.forEach((tag, i) => {
    if (tag.length === 0) throw invalidArgument(`${field}[${i}]`, "must not be empty");
  });
  return uniqueTags(tags);
}

/** A record with metadata and tags that a metadata changeset edits. */
export interface TaggedRecord {
  metadata: JsonObject;
  tags: string[];
}

/**
 * Applies a metadata changeset to a record in place: its field edits to `metadata`, its tag edits
 * to `tags`. Tags are checked as sent, so an error names the index within `put_tags`.
 */
export function applyMetadataChangeset(record: TaggedRecord, changes: MetadataChanges, field = "metadata_changeset"): void {
  checkTags(changes.putTags, `${field}.put_tags`);
  record.metadata = applyFieldChanges(record.metadata, changes, field);
  record.tags = applyTagChanges(record.tags, changes);
}
