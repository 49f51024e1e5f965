import type { ServiceImpl } from "@connectrpc/connect";
import {
  applyFieldChanges,
  applyTagChanges,
  callerOf,
  conflict,
  notFound,
  readableOrg,
  requireOrg,
  type EntityManager,
  type Principal,
  type SearchPlan,
  type ServiceContext,
  quoteValue,
  fitPage,
} from "@hangar/shared";
import type { ComputeService, UpdateActionRequest } from "@hangar/shared/proto/compute";
import { ActionSchema } from "@hangar/shared/proto/compute";
import {
  actionDigest,
  applyParameterChanges,
  checkAccessibility,
  checkActionName,
  checkActionTags,
  checkReadable,
  composeDefinition,
  definitionFields,
  definitionJson,
  EMPTY_DEFINITION,
  publishedAt,
  type ActionDefinitionFields,
  type ActionReferenceDef,
  type ParentAction,
} from "../domain/actions";
import { planActionSearch, type ActionScope } from "../domain/action-search";
import { resolveInvocableAction } from "../domain/invoke";
import { ActionStore } from "../store/action-store";
import type { ActionRecord } from "../domain/records";
import {
  actionDefinitionToProto,
  actionToProto,
  createChangesFromProto,
  inheritsFromValue,
  parameterChangesFromProto,
  referenceFromProto,
  updateChangesFromProto,
} from "./action-mappers";

type ActionHandlers = Pick<
  ServiceImpl<typeof ComputeService>,
  | "createAction"
  | "getAction"
  | "updateAction"
  | "deleteAction"
  | "setActionAccessibility"
  | "queryActions"
  | "queryActionHubActions"
  | "listActionMetadataKeys"
>;

/** Implements the operations on actions of hangar.compute.v1.ComputeService. */
export function createActionHandlers(context: ServiceContext): ActionHandlers {
  const store = () => new ActionStore(context.orm.em.fork());

  return {
    async createAction(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = requireOrg(caller);
      const name = checkActionName(req.name);
      const s = store();
      const parent = req.inherits ? await resolveParent(s.em, orgId, referenceFromProto(req.inherits)) : undefined;
      const definition = composeDefinition(EMPTY_DEFINITION, createChangesFromProto(req), parent);
      const row = newActionRow(caller, orgId, name, definition, req.metadata ?? {}, checkActionTags(req.tags, "tags"));
      if (!(await s.insert(row))) throw conflict(`name: an action named ${quoteValue(name)} already exists in org ${quoteValue(orgId)}`);
      return { action: actionToProto(row) };
    },

    async getAction(req, ctx) {
      const s = store();
      const row = await readAction(s, callerOf(ctx), req.name);
      if (!req.digest || req.digest === row.digest) return { action: actionToProto(row) };
      const version = await s.findVersion(row.orgId, row.name, req.digest);
      if (!version) throw notFound("action digest", `${req.name}@${req.digest}`);
      return { action: actionDefinitionToProto(row, version) };
    },

    async updateAction(req, ctx) {
      const caller = callerOf(ctx);
      const row = await store().transaction(async (tx) => {
        const action = await ownAction(tx, caller, req.name, true);
        await reviseDefinition(tx, action, req);
        if (req.metadataChangeset) {
          // Tags are checked as sent, so an error names the index within put_tags.
          checkActionTags(req.metadataChangeset.putTags, "metadata_changeset.put_tags");
          action.metadata = applyFieldChanges(action.metadata, req.metadataChangeset, "metadata_changeset");
          action.tags = applyTagChanges(action.tags, req.metadataChangeset);
        }
        touch(action, caller);
        return action;
      });
      return { action: actionToProto(row) };
    },

    async deleteAction(req, ctx) {
      const s = store();
      s.remove(await ownAction(s, callerOf(ctx), req.name));
      await s.flush();
      return {};
    },

    async setActionAccessibility(req, ctx) {
      const caller = callerOf(ctx);
      const accessibility = checkAccessibility(req.accessibility);
      const s = store();
      const row = await ownAction(s, caller, req.name);
      if (req.digest && req.digest !== row.digest && !(await s.findVersion(row.orgId, row.name, req.digest))) {
        throw notFound("action digest", `${req.name}@${req.digest}`);
      }
      row.published = publishedAt(row, accessibility, new Date());
      row.accessibility = accessibility;
      touch(row, caller);
      await s.flush();
      return { action: actionToProto(row) };
    },

    async queryActions(req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      const plan = planActionSearch(req.query ?? {}, "org");
      // A named owner org the caller does not belong to matches nothing (the query is still checked).
      return orgId ? pageOf(plan, { orgId }) : { items: [], totalCount: 0n };
    },

    queryActionHubActions(req) {
      return pageOf(planActionSearch(req.query ?? {}, "action_hub"), "action_hub");
    },

    async listActionMetadataKeys(_req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      return { keys: orgId ? await store().metadataKeys(orgId) : [] };
    },
  };

  async function pageOf(plan: SearchPlan, scope: ActionScope) {
    const { rows, hasMore, cursors, total } = await store().search(scope, plan);
    // The next page starts after the last action kept: fitPage may keep fewer than were read.
    const items = fitPage(ActionSchema, rows.map(actionToProto));
    const nextToken = plan.nextToken(cursors[items.length - 1], hasMore || items.length < rows.length);
    return { items, ...(total !== undefined ? { totalCount: BigInt(total) } : {}), ...(nextToken ? { nextToken } : {}) };
  }
}

/**
 * The action a caller may read: one of the org it acts in (or of the resource owner org it names
 * and belongs to), or another org's on the Action Hub when the caller names that org as owner.
 */
async function readAction(s: ActionStore, caller: Principal, name: string): Promise<ActionRecord> {
  const ownerOrgId = caller.resourceOwnerId ?? requireOrg(caller);
  return checkReadable(await s.find(ownerOrgId, name), readableOrg(caller) === ownerOrgId, name);
}

/** An action the caller may change: only in an org it belongs to; any other is not found. */
async function ownAction(s: ActionStore, caller: Principal, name: string, lock = false): Promise<ActionRecord> {
  const orgId = readableOrg(caller);
  const row = orgId ? await s.find(orgId, name, lock) : null;
  if (!row) throw notFound("action", name);
  return row;
}

/** Resolves an `inherits` reference to an action the org may see (its own, or on the Action Hub). */
async function resolveParent(em: EntityManager, orgId: string, reference: ActionReferenceDef): Promise<ParentAction> {
  const parent = await resolveInvocableAction(em, orgId, { name: reference.name, ownerOrgId: reference.owner ?? orgId, digest: reference.digest ?? undefined });
  return { reference: { name: parent.name, digest: parent.digest, owner: parent.orgId }, definition: definitionFields(parent.definition) };
}

/** Applies an update's definition edits; a changed definition gets a new digest, recorded as a version. */
async function reviseDefinition(tx: ActionStore, row: ActionRecord, req: UpdateActionRequest): Promise<void> {
  const current = definitionFields(row.definition);
  const changes = updateChangesFromProto(req);
  if (req.parameterChangeset) changes.parameters = applyParameterChanges(current.parameters, parameterChangesFromProto(req.parameterChangeset));
  const inherits = inheritsFromValue(req.inherits);
  const parent = inherits ? await resolveParent(tx.em, row.orgId, inherits) : inherits;
  const definition = composeDefinition(current, changes, parent);
  const digest = actionDigest(row.orgId, row.name, definition);
  if (digest === row.digest) return;
  row.definition = definitionJson(definition);
  row.digest = digest;
  await tx.saveVersion(row);
}

function newActionRow(
  caller: Principal,
  orgId: string,
  name: string,
  definition: ActionDefinitionFields,
  metadata: ActionRecord["metadata"],
  tags: string[],
): ActionRecord {
  const now = new Date();
  return {
    orgId,
    name,
    accessibility: "organization",
    definition: definitionJson(definition),
    digest: actionDigest(orgId, name, definition),
    metadata,
    tags,
    published: null,
    created: now,
    createdBy: caller.subject,
    modified: now,
    modifiedBy: caller.subject,
  };
}

function touch(row: ActionRecord, caller: Principal): void {
  row.modified = new Date();
  row.modifiedBy = caller.subject;
}
