import type { JsonObject } from "@bufbuild/protobuf";
import { applyFieldChanges, applyTagChanges, invalidArgument, uniqueTags, type MetadataChanges, quoteValue } from "@hangar/shared";

/** A dataset name must be shorter than this (spec: under 120 characters). */
export const MAX_DATASET_NAME_LENGTH = 120;

/** Relations a dataset permission tuple may name, and what each grants. */
export const DATASET_RELATIONS: Record<string, string[]> = {
  owner: ["read", "write", "delete", "share"],
  editor: ["read", "write"],
  viewer: ["read"],
};

/** Validates a dataset name from a request. */
export function checkDatasetName(name: string | null | undefined, field = "name"): string | null {
  if (name === undefined || name === null) return null;
  // Characters are code points, as clients count them: `length` would count an emoji twice.
  const length = [...name].length;
  if (length >= MAX_DATASET_NAME_LENGTH) {
    throw invalidArgument(field, `must be under ${MAX_DATASET_NAME_LENGTH} characters (got ${length})`);
  }
  return name;
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

/** The object a permission tuple on this dataset names. */
export function datasetObject(datasetId: string): string {
  return `dataset:${datasetId}`;
}

/** Validates one permission tuple of an edit, naming the field on error. */
export function checkRelationTuple(
  tuple: { user: string; relation: string; obj: string },
  datasetId: string,
  field: string,
): { subject: string; relation: string } {
  if (tuple.user.length === 0) throw invalidArgument(`${field}.user`, "must not be empty");
  if (!(tuple.relation in DATASET_RELATIONS)) {
    throw invalidArgument(`${field}.relation`, `unknown relation ${quoteValue(tuple.relation)}; expected one of ${Object.keys(DATASET_RELATIONS).join(", ")}`);
  }
  if (tuple.obj !== "" && tuple.obj !== datasetObject(datasetId)) {
    throw invalidArgument(`${field}.obj`, `must be '${datasetObject(datasetId)}'`);
  }
  return { subject: tuple.user, relation: tuple.relation };
}

/** What each relation grants, as the permission listing's `group_permissions`. */
export function groupPermissions(): JsonObject {
  return Object.fromEntries(Object.entries(DATASET_RELATIONS).map(([relation, grants]) => [relation, [...grants]]));
}
