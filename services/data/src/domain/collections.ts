import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { invalidArgument, quoteValue, type KeysetPageRows, type KeysetSearch } from "@hangar/shared";
import type { StoredRelation } from "./relations";

/** What a collection may hold, as the client SDK's `CollectionResourceType` names them. */
export const COLLECTION_RESOURCE_TYPES = ["dataset", "event", "file", "session"] as const;
/** One of COLLECTION_RESOURCE_TYPES. */
export type CollectionResourceType = (typeof COLLECTION_RESOURCE_TYPES)[number];

/** How much of the members a read returns: nothing, their references, or their records. */
export const CONTENT_MODES = ["summary_only", "references", "full"] as const;
/** One of CONTENT_MODES. */
export type ContentMode = (typeof CONTENT_MODES)[number];

/** A collection's current state; the store's entity has exactly this shape. */
export interface CollectionRecord {
  collectionId: string;
  orgId: string;
  name: string | null;
  description: string | null;
  resourceType: CollectionResourceType;
  tags: string[];
  customFields: JsonObject;
  /** Every member reference, members deleted since included. */
  resourceCount: number;
  version: number;
  created: Date;
  createdBy: string;
  updated: Date;
  updatedBy: string;
}

/** One member of a collection. `resourceVersion` is kept as given (null when none was). */
export interface ResourceRef {
  resourceType: CollectionResourceType;
  resourceId: string;
  resourceVersion: string | null;
}

/** What one version changed. `fieldChanges` maps `name`, `description`, `custom_fields.<name>` to the new value. */
export interface CollectionChangeSet {
  addedResources: ResourceRef[];
  removedResources: ResourceRef[];
  addedTags: string[];
  removedTags: string[];
  fieldChanges: JsonObject;
}

/** One version of a collection: its scalar fields as they were, and the change that made it (none for version 0). */
export interface CollectionVersion {
  collectionId: string;
  version: number;
  name: string | null;
  description: string | null;
  tags: string[];
  customFields: JsonObject;
  resourceCount: number;
  applied: Date;
  appliedBy: string;
  changeSet: CollectionChangeSet | null;
}

/** The persistence of collections (store/collection-store.ts). */
export interface CollectionRepository {
  /** A collection of the org; with `lock` (in a transaction) it stays locked for update until it ends. */
  find(orgId: string, collectionId: string, lock?: boolean): Promise<CollectionRecord | null>;
  add(record: CollectionRecord): void;
  /** Deletes a collection with its members, versions and permission tuples. */
  remove(record: CollectionRecord): Promise<void>;
  /** The members at a version (the current ones when absent), in the order they were added. */
  members(collectionId: string, version?: number): Promise<ResourceRef[]>;
  /** Makes `refs` members from `version` on. */
  addMembers(collectionId: string, refs: readonly ResourceRef[], version: number): Promise<void>;
  /** Ends the membership of `refs` at `version` (they belong to the versions before it). */
  removeMembers(collectionId: string, refs: readonly ResourceRef[], version: number): Promise<void>;
  addVersion(version: CollectionVersion): void;
  /** One version's row, or null when the collection never had it. */
  version(collectionId: string, version: number): Promise<CollectionVersion | null>;
  /** Versions with a change (1 and later) whose change lies within the bounds, oldest first, after `afterVersion`. */
  changes(collectionId: string, range: { from?: number | undefined; to?: number | undefined; afterVersion?: number | undefined; limit: number }): Promise<CollectionVersion[]>;
  /** One keyset page of the org's matches and their number (undefined above the count cap). */
  search(orgId: string, search: KeysetSearch): Promise<KeysetPageRows<CollectionRecord> & { total: number | undefined }>;
  /** The stored permission tuples of a collection, by relation then subject. */
  relations(collectionId: string): Promise<StoredRelation[]>;
  addRelation(collectionId: string, relation: StoredRelation): void;
  removeRelation(collectionId: string, relation: StoredRelation): Promise<void>;
}

/** Validates a resource type, naming `field` on error. */
export function checkResourceType(value: string, field: string): CollectionResourceType {
  if ((COLLECTION_RESOURCE_TYPES as readonly string[]).includes(value)) return value as CollectionResourceType;
  throw invalidArgument(field, `must be one of ${COLLECTION_RESOURCE_TYPES.join(", ")}, got ${quoteValue(value)}`);
}

/** Validates a content mode (absent or empty: `fallback`), naming `content_mode` on error. */
export function checkContentMode(value: string | undefined, fallback: ContentMode): ContentMode {
  if (value === undefined || value === "") return fallback;
  if ((CONTENT_MODES as readonly string[]).includes(value)) return value as ContentMode;
  throw invalidArgument("content_mode", `must be one of ${CONTENT_MODES.join(", ")}, got ${quoteValue(value)}`);
}

/** Validates the references of a request (`field`, e.g. `add_resources`); duplicates are dropped. */
export function checkResourceRefs(refs: readonly { resourceType: string; resourceId: string; resourceVersion?: string | undefined }[], field: string): ResourceRef[] {
  const checked = refs.map((ref, i) => {
    if (ref.resourceId === "") throw invalidArgument(`${field}[${i}].resource_id`, "must not be empty");
    return { resourceType: checkResourceType(ref.resourceType, `${field}[${i}].resource_type`), resourceId: ref.resourceId, resourceVersion: ref.resourceVersion ?? null };
  });
  return checked.filter((ref, i) => checked.findIndex((o) => sameResource(o, ref)) === i);
}

/** Whether two references name the same resource (versions aside: a resource is a member once). */
export function sameResource(a: ResourceRef, b: ResourceRef): boolean {
  return a.resourceType === b.resourceType && a.resourceId === b.resourceId;
}

/** A resource's key in maps of members: `type:id`. */
export function resourceKey(ref: { resourceType: string; resourceId: string }): string {
  return `${ref.resourceType}:${ref.resourceId}`;
}

/** Whether a change set changes nothing (an update that makes no new version). */
export function isEmptyChange(change: CollectionChangeSet): boolean {
  return change.addedResources.length + change.removedResources.length + change.addedTags.length + change.removedTags.length === 0 && Object.keys(change.fieldChanges).length === 0;
}

/** The custom-field entries of `after` that differ from `before`, as `custom_fields.<name>` field changes. */
export function customFieldChanges(before: JsonObject, after: JsonObject): JsonObject {
  const changes: JsonObject = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[name]) !== JSON.stringify(after[name])) changes[`custom_fields.${name}`] = (after[name] ?? null) as JsonValue;
  }
  return changes;
}
