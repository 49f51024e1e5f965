import type { JsonObject } from "@bufbuild/protobuf";
import { applyFieldChanges, applyTagChanges, conflict, notFound, quoteValue, type MetadataChanges, type SearchPlan, type UnitOfWork } from "@hangar/shared";
import {
  actionDigest,
  applyParameterChanges,
  checkActionTags,
  checkReadable,
  composeDefinition,
  definitionFields,
  definitionJson,
  EMPTY_DEFINITION,
  publishedAt,
  type Accessibility,
  type ActionDefinitionFields,
  type ActionReferenceDef,
  type DefinitionChanges,
  type ParameterChanges,
  type ParentAction,
} from "./actions";
import { recordEntityDeleted } from "./entity-deletions";
import type { ActionScope } from "./action-search";
import { resolveInvocableAction } from "./invoke";
import type { ActionRecord, ActionVersionRecord } from "./records";
import type { ActionRepositories, ActionRepository, SearchPage } from "./repositories";

/** A create_action request, its name already checked. */
export interface NewAction {
  orgId: string;
  name: string;
  definition: DefinitionChanges;
  inherits?: ActionReferenceDef | undefined;
  metadata: JsonObject;
  tags: readonly string[];
}

/**
 * Creates an action and records its first version, in one transaction: the parent (when it
 * inherits) is resolved, the definition composed and checked, the tags checked. A name the org
 * already uses is a conflict, also under a concurrent create.
 */
export async function createAction(uow: UnitOfWork<ActionRepositories>, by: string, input: NewAction): Promise<ActionRecord> {
  return uow.transaction(async ({ actions }) => {
    const parent = input.inherits ? await resolveParent(actions, input.orgId, input.inherits) : undefined;
    const definition = composeDefinition(EMPTY_DEFINITION, input.definition, parent);
    const record = newActionRecord(by, input, definition, checkActionTags(input.tags, "tags"));
    if (!(await actions.insert(record))) {
      throw conflict(`name: an action named ${quoteValue(input.name)} already exists in org ${quoteValue(input.orgId)}`);
    }
    await actions.saveVersion(record);
    return record;
  });
}

/** Which action a read names, and whether the caller is a member of its owner org. */
export interface ActionRead {
  ownerOrgId: string;
  member: boolean;
  name: string;
  /** An earlier digest to read the definition at; absent or the current one reads the current. */
  digest?: string | undefined;
}

/**
 * Reads an action (a member's, or another org's on the Action Hub; anything else is not found),
 * with the version at `digest` when that names an earlier one (not found unless the action had it).
 */
export async function getAction(uow: UnitOfWork<ActionRepositories>, read: ActionRead): Promise<{ action: ActionRecord; version?: ActionVersionRecord }> {
  const { actions } = uow.repositories();
  const action = checkReadable(await actions.find(read.ownerOrgId, read.name), read.member, read.name);
  if (!read.digest || read.digest === action.digest) return { action };
  const version = await actions.findVersion(action.orgId, action.name, read.digest);
  if (!version) throw notFound("action digest", `${read.name}@${read.digest}`);
  return { action, version };
}

/** An update_action request: definition edits, a parameter changeset, a new (or cleared) parent, metadata edits. */
export interface ActionUpdate {
  orgId: string;
  name: string;
  definition: DefinitionChanges;
  parameters?: ParameterChanges | undefined;
  /** Undefined leaves the parent alone, null clears it. */
  inherits: ActionReferenceDef | null | undefined;
  metadata?: MetadataChanges | undefined;
}

/**
 * Updates an action under its row lock, so concurrent updates apply one after the other: a
 * changed definition gets a new digest, recorded as a version; metadata and tags are edited.
 */
export async function updateAction(uow: UnitOfWork<ActionRepositories>, by: string, update: ActionUpdate): Promise<ActionRecord> {
  return uow.transaction(async ({ actions }) => {
    const action = await ownAction(actions, update.orgId, update.name, true);
    await reviseDefinition(actions, action, update);
    if (update.metadata) {
      // Tags are checked as sent, so an error names the index within put_tags.
      checkActionTags(update.metadata.putTags, "metadata_changeset.put_tags");
      action.metadata = applyFieldChanges(action.metadata, update.metadata, "metadata_changeset");
      action.tags = applyTagChanges(action.tags, update.metadata);
    }
    touch(action, by);
    await actions.update(action);
    return action;
  });
}

/** Deletes an action of the org (not found when it has none of that name); its earlier digests and its comments go with it. */
export async function deleteAction(uow: UnitOfWork<ActionRepositories>, orgId: string, name: string): Promise<void> {
  await uow.transaction(async ({ actions, events }) => {
    await actions.remove(await ownAction(actions, orgId, name));
    recordEntityDeleted(events, orgId, "action", name);
  });
}

/**
 * Moves an action onto or off the Action Hub (`published` follows, see publishedAt). A `digest`
 * other than the current one must be one the action has had.
 */
export async function setActionAccessibility(
  uow: UnitOfWork<ActionRepositories>,
  by: string,
  change: { orgId: string; name: string; accessibility: Accessibility; digest?: string | undefined },
): Promise<ActionRecord> {
  return uow.transaction(async ({ actions }) => {
    // Locked: the whole editable row is written back, so a concurrent update must not interleave.
    const action = await ownAction(actions, change.orgId, change.name, true);
    if (change.digest && change.digest !== action.digest && !(await actions.findVersion(action.orgId, action.name, change.digest))) {
      throw notFound("action digest", `${change.name}@${change.digest}`);
    }
    action.published = publishedAt(action, change.accessibility, new Date());
    action.accessibility = change.accessibility;
    touch(action, by);
    await actions.update(action);
    return action;
  });
}

/** One page of a planned action search over `scope` (an org's actions, or the Action Hub). */
export function searchActions(uow: UnitOfWork<ActionRepositories>, scope: ActionScope, plan: SearchPlan): Promise<SearchPage<ActionRecord>> {
  return uow.repositories().actions.search(scope, plan);
}

/** The distinct top-level metadata keys of the org's actions, sorted. */
export function listActionMetadataKeys(uow: UnitOfWork<ActionRepositories>, orgId: string): Promise<string[]> {
  return uow.repositories().actions.metadataKeys(orgId);
}

/** An action the org holds; not found otherwise. */
async function ownAction(actions: ActionRepository, orgId: string, name: string, lock = false): Promise<ActionRecord> {
  const action = await actions.find(orgId, name, lock);
  if (!action) throw notFound("action", name);
  return action;
}

/** Resolves an `inherits` reference to an action the org may see (its own, or on the Action Hub). */
async function resolveParent(actions: ActionRepository, orgId: string, reference: ActionReferenceDef): Promise<ParentAction> {
  const parent = await resolveInvocableAction(actions, orgId, { name: reference.name, ownerOrgId: reference.owner ?? orgId, digest: reference.digest ?? undefined });
  return { reference: { name: parent.name, digest: parent.digest, owner: parent.orgId }, definition: definitionFields(parent.definition) };
}

/** Applies an update's definition edits; a changed definition gets a new digest, recorded as a version. */
async function reviseDefinition(actions: ActionRepository, action: ActionRecord, update: ActionUpdate): Promise<void> {
  const current = definitionFields(action.definition);
  const changes = { ...update.definition };
  if (update.parameters) changes.parameters = applyParameterChanges(current.parameters, update.parameters);
  const parent = update.inherits ? await resolveParent(actions, action.orgId, update.inherits) : update.inherits;
  const definition = composeDefinition(current, changes, parent);
  const digest = actionDigest(action.orgId, action.name, definition);
  if (digest === action.digest) return;
  action.definition = definitionJson(definition);
  action.digest = digest;
  await actions.saveVersion(action);
}

function newActionRecord(by: string, input: NewAction, definition: ActionDefinitionFields, tags: string[]): ActionRecord {
  const now = new Date();
  return {
    orgId: input.orgId,
    name: input.name,
    accessibility: "organization",
    definition: definitionJson(definition),
    digest: actionDigest(input.orgId, input.name, definition),
    metadata: input.metadata,
    tags,
    published: null,
    created: now,
    createdBy: by,
    modified: now,
    modifiedBy: by,
  };
}

function touch(action: ActionRecord, by: string): void {
  action.modified = new Date();
  action.modifiedBy = by;
}
