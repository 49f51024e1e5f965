import type { JsonObject } from "@bufbuild/protobuf";
import { applyCustomFieldChanges, invalidArgument, newId, notFound, type CustomFieldChanges, type KeysetPageRows, type QuerySpecInput, type SearchPlan, type UnitOfWork } from "@hangar/shared";
import type { Actor, OrgActor } from "./actor";
import { loadMembers, type MemberRecord, type MemberRepositories } from "./collection-members";
import { planCollectionSearch } from "./collection-search";
import {
  checkResourceRefs,
  checkResourceType,
  customFieldChanges,
  isEmptyChange,
  resourceKey,
  sameResource,
  type CollectionChangeSet,
  type CollectionRecord,
  type CollectionVersion,
  type ContentMode,
  type ResourceRef,
} from "./collections";
import { checkTags } from "./datasets";
import { checkRelationEdit, newRelations, permissionsOf, relationObject, type PermissionTuple, type Permissions } from "./relations";
import type { DataRepositories } from "./repositories";

/** What the collection use cases reach: collections and the resources they hold. */
export type CollectionRepositories = Pick<DataRepositories, "collections"> & MemberRepositories;

/** A new collection as a request gives it. */
export interface NewCollection {
  name?: string | undefined;
  description?: string | undefined;
  resourceType?: string | undefined;
  resources: readonly { resourceType: string; resourceId: string; resourceVersion?: string | undefined }[];
  tags: readonly string[];
  customFields?: JsonObject | undefined;
}

/** The changes of an update: an absent field stays, null clears it. */
export interface CollectionUpdate {
  name?: string | null | undefined;
  description?: string | null | undefined;
  addResources: NewCollection["resources"];
  removeResources: NewCollection["resources"];
  addTags: readonly string[];
  removeTags: readonly string[];
  customFieldsChangeset?: CustomFieldChanges | undefined;
}

/** A collection's members as a content mode shows them: references, or records and the references of deleted ones. */
export type CollectionContents =
  | { mode: "summary_only" }
  | { mode: "references"; refs: ResourceRef[] }
  | { mode: "full"; present: MemberRecord[]; missing: ResourceRef[] };

/** A collection (at a version) with its members in a content mode. */
export interface CollectionView {
  record: CollectionRecord;
  contents: CollectionContents;
}

/** Page size of change listings: the client SDK reads only the first page. */
export const CHANGES_PAGE_SIZE = 1000;

/**
 * Creates a collection at version 0 in the actor's org. Every resource must be one of the org's
 * (a 404 naming the field otherwise), so a collection never starts with another org's ids.
 */
export async function createCollection(uow: UnitOfWork<CollectionRepositories>, actor: OrgActor, input: NewCollection): Promise<CollectionRecord> {
  const refs = checkResourceRefs(input.resources, "resources");
  const now = new Date();
  const record: CollectionRecord = {
    collectionId: newId("cl"),
    orgId: actor.orgId,
    name: input.name ?? null,
    description: input.description ?? null,
    resourceType: checkResourceType(input.resourceType || "file", "resource_type"),
    tags: checkTags(input.tags),
    customFields: input.customFields ?? {},
    resourceCount: refs.length,
    version: 0,
    created: now,
    createdBy: actor.subject,
    updated: now,
    updatedBy: actor.subject,
  };
  await requireResources(uow.repositories(), actor.orgId, refs, "resources");
  await uow.transaction(async (r) => {
    r.collections.add(record);
    await r.collections.addMembers(record.collectionId, refs, 0);
    r.collections.addVersion(versionOf(record, null));
  });
  return record;
}

/**
 * A collection the actor can read, as it is now or as it was at `version` (0 is the created
 * state), with its members in `mode`. A version it never had is a 404.
 */
export async function getCollection(uow: UnitOfWork<CollectionRepositories>, actor: Actor, collectionId: string, mode: ContentMode, version?: number): Promise<CollectionView> {
  const r = uow.repositories();
  const current = await findCollection(r, actor, collectionId);
  const record = version === undefined || version === current.version ? current : await atVersion(r, current, version);
  const members = mode === "summary_only" ? [] : await r.collections.members(collectionId, record.version);
  return { record, contents: await contentsOf(r, record.orgId, members, mode) };
}

/** Shows members in a content mode. `full` reads each member: a deleted one is listed as missing. */
export async function contentsOf(r: MemberRepositories, orgId: string, refs: ResourceRef[], mode: ContentMode): Promise<CollectionContents> {
  if (mode === "summary_only") return { mode };
  if (mode === "references") return { mode, refs };
  const found = await loadMembers(r, orgId, refs);
  const present = refs.flatMap((ref) => found.get(resourceKey(ref)) ?? []);
  return { mode, present, missing: refs.filter((ref) => !found.has(resourceKey(ref))) };
}

/**
 * Applies one change and makes it the next version, with its change record. Only what changes
 * counts: adding a member already there, removing one that is not, or setting a field to its value
 * is left out of the change set, and an update that changes nothing makes no version. Added
 * resources must be the org's (a 404 naming the field). Locked: concurrent updates take turns.
 */
export async function updateCollection(uow: UnitOfWork<CollectionRepositories>, actor: Actor, collectionId: string, update: CollectionUpdate): Promise<CollectionRecord> {
  const addRefs = checkResourceRefs(update.addResources, "add_resources");
  const removeRefs = checkResourceRefs(update.removeResources, "remove_resources");
  checkTags(update.addTags, "add_tags");
  return uow.transaction(async (r) => {
    const record = await findCollection(r, actor, collectionId, true);
    const members = await r.collections.members(collectionId);
    const change = changeOf(record, members, { ...update, addRefs, removeRefs });
    if (isEmptyChange(change)) return record;
    await requireResources(r, record.orgId, change.addedResources, "add_resources");
    const version = record.version + 1;
    await r.collections.removeMembers(collectionId, change.removedResources, version);
    await r.collections.addMembers(collectionId, change.addedResources, version);
    applyChange(record, change, update, actor.subject, members.length);
    r.collections.addVersion(versionOf(record, change));
    return record;
  });
}

/** Deletes a collection with its history and permission tuples; what it held is untouched. */
export async function deleteCollection(uow: UnitOfWork<CollectionRepositories>, actor: Actor, collectionId: string): Promise<void> {
  await uow.transaction(async (r) => r.collections.remove(await findCollection(r, actor, collectionId, true)));
}

/**
 * One page of a collection's change records, oldest first: those from `from` on and up to `to`
 * (both inclusive, either open), after the version a previous page's token names.
 */
export async function listCollectionChanges(
  uow: UnitOfWork<CollectionRepositories>,
  actor: Actor,
  collectionId: string,
  range: { from?: number | undefined; to?: number | undefined; pageToken?: string | undefined },
): Promise<{ items: CollectionVersion[]; nextToken: string | undefined }> {
  const afterVersion = pageTokenVersion(range.pageToken);
  const r = uow.repositories();
  await findCollection(r, actor, collectionId);
  const rows = await r.collections.changes(collectionId, { from: range.from, to: range.to, afterVersion, limit: CHANGES_PAGE_SIZE + 1 });
  const items = rows.slice(0, CHANGES_PAGE_SIZE);
  return { items, nextToken: rows.length > CHANGES_PAGE_SIZE ? String(items[items.length - 1]!.version) : undefined };
}

/** The permissions of a collection the actor can read: the dataset relation model. */
export async function getCollectionPermissions(uow: UnitOfWork<CollectionRepositories>, actor: Actor, collectionId: string): Promise<Permissions> {
  const r = uow.repositories();
  return collectionPermissions(r, await findCollection(r, actor, collectionId));
}

/** Adds and removes stored permission tuples, all or nothing, as on datasets. */
export async function updateCollectionPermissions(
  uow: UnitOfWork<CollectionRepositories>,
  actor: Actor,
  collectionId: string,
  edit: { add: readonly PermissionTuple[]; remove: readonly PermissionTuple[] },
): Promise<Permissions> {
  const record = await findCollection(uow.repositories(), actor, collectionId);
  const { add, remove } = checkRelationEdit(edit, relationObject("collection", collectionId));
  await uow.transaction(async (r) => {
    for (const tuple of remove) await r.collections.removeRelation(collectionId, tuple);
    for (const tuple of newRelations(add, await r.collections.relations(collectionId))) r.collections.addRelation(collectionId, tuple);
  });
  return collectionPermissions(uow.repositories(), record);
}

/**
 * One page of the collections matching a QuerySpecification in the actor's org, with the plan that
 * makes its next token; none when the actor may read no org. The spec is checked either way.
 */
export async function searchCollections(
  uow: UnitOfWork<CollectionRepositories>,
  actor: Actor,
  spec: QuerySpecInput,
): Promise<{ plan: SearchPlan; page: KeysetPageRows<CollectionRecord> & { total: number | undefined } } | undefined> {
  const plan = planCollectionSearch(spec);
  if (!actor.orgId) return undefined;
  return { plan, page: await uow.repositories().collections.search(actor.orgId, plan) };
}

/** A collection of the actor's org; a 404 otherwise (another org's reads the same as none). */
export async function findCollection(r: Pick<CollectionRepositories, "collections">, actor: Actor, collectionId: string, lock = false): Promise<CollectionRecord> {
  const record = actor.orgId ? await r.collections.find(actor.orgId, collectionId, lock) : null;
  if (!record) throw notFound("collection", collectionId);
  return record;
}

async function atVersion(r: CollectionRepositories, current: CollectionRecord, version: number): Promise<CollectionRecord> {
  const row = version >= 0 && version < current.version ? await r.collections.version(current.collectionId, version) : null;
  if (!row) throw notFound("collection version", `${current.collectionId}@${version}`);
  const { name, description, tags, customFields, resourceCount, applied, appliedBy } = row;
  return { ...current, name, description, tags, customFields, resourceCount, version, updated: applied, updatedBy: appliedBy };
}

async function requireResources(r: MemberRepositories, orgId: string, refs: readonly ResourceRef[], field: string): Promise<void> {
  const found = await loadMembers(r, orgId, refs);
  const missing = refs.find((ref) => !found.has(resourceKey(ref)));
  if (missing) throw notFound(`${field}: ${missing.resourceType}`, missing.resourceId);
}

function changeOf(record: CollectionRecord, members: ResourceRef[], update: CollectionUpdate & { addRefs: ResourceRef[]; removeRefs: ResourceRef[] }): CollectionChangeSet {
  const removedResources = members.filter((m) => update.removeRefs.some((ref) => sameResource(ref, m)));
  const fieldChanges: JsonObject = {};
  if (update.name !== undefined && update.name !== record.name) fieldChanges.name = update.name;
  if (update.description !== undefined && update.description !== record.description) fieldChanges.description = update.description;
  if (update.customFieldsChangeset) {
    Object.assign(fieldChanges, customFieldChanges(record.customFields, applyCustomFieldChanges(record.customFields, update.customFieldsChangeset, "custom_fields_changeset")));
  }
  const removeTags = [...new Set(update.removeTags)];
  return {
    // A resource both removed and added stays (as added): removal applies first.
    addedResources: update.addRefs.filter((ref) => !members.some((m) => sameResource(m, ref)) || removedResources.some((m) => sameResource(m, ref))),
    removedResources,
    addedTags: [...new Set(update.addTags)].filter((tag) => !record.tags.includes(tag) || removeTags.includes(tag)),
    removedTags: removeTags.filter((tag) => record.tags.includes(tag) && !update.addTags.includes(tag)),
    fieldChanges,
  };
}

function applyChange(record: CollectionRecord, change: CollectionChangeSet, update: CollectionUpdate, actor: string, memberCount: number): void {
  if ("name" in change.fieldChanges) record.name = update.name ?? null;
  if ("description" in change.fieldChanges) record.description = update.description ?? null;
  if (update.customFieldsChangeset) record.customFields = applyCustomFieldChanges(record.customFields, update.customFieldsChangeset, "custom_fields_changeset");
  record.tags = [...record.tags.filter((tag) => !change.removedTags.includes(tag)), ...change.addedTags.filter((tag) => !record.tags.includes(tag))];
  record.resourceCount = memberCount - change.removedResources.length + change.addedResources.length;
  record.version += 1;
  record.updated = new Date();
  record.updatedBy = actor;
}

function versionOf(record: CollectionRecord, changeSet: CollectionChangeSet | null): CollectionVersion {
  const { collectionId, version, name, description, tags, customFields, resourceCount, updated, updatedBy } = record;
  return { collectionId, version, name, description, tags: [...tags], customFields, resourceCount, applied: updated, appliedBy: updatedBy, changeSet };
}

function pageTokenVersion(token: string | undefined): number | undefined {
  if (token === undefined || token === "") return undefined;
  if (!/^\d{1,9}$/.test(token)) throw invalidArgument("page_token", "is not a token this listing returned");
  return Number(token);
}

async function collectionPermissions(r: Pick<CollectionRepositories, "collections">, record: CollectionRecord): Promise<Permissions> {
  return permissionsOf(relationObject("collection", record.collectionId), record, await r.collections.relations(record.collectionId));
}
