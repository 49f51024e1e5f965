import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, fitPage, notFound, readableOrg, requireOrg, type Principal, type SearchPlan, type UnitOfWork } from "@hangar/shared";
import type { ComputeService } from "@hangar/shared/proto/compute";
import { ActionSchema } from "@hangar/shared/proto/compute";
import { checkAccessibility, checkActionName } from "../domain/actions";
import { planActionSearch, type ActionScope } from "../domain/action-search";
import { createAction, deleteAction, getAction, listActionMetadataKeys, searchActions, setActionAccessibility, updateAction } from "../domain/manage-actions";
import type { ActionRepositories } from "../domain/repositories";
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

/** What the action operations need: the unit of work, and the outbox relay's wake-up after a commit that recorded events. */
export interface ActionHandlerDeps {
  uow: UnitOfWork<ActionRepositories>;
  eventsWritten(): void;
}

/** Implements the operations on actions of hangar.compute.v1.ComputeService. */
export function createActionHandlers({ uow, eventsWritten }: ActionHandlerDeps): ActionHandlers {
  return {
    async createAction(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = requireOrg(caller);
      const name = checkActionName(req.name);
      const action = await createAction(uow, caller.subject, {
        orgId,
        name,
        definition: createChangesFromProto(req),
        inherits: req.inherits ? referenceFromProto(req.inherits) : undefined,
        metadata: req.metadata ?? {},
        tags: req.tags,
      });
      return { action: actionToProto(action) };
    },

    async getAction(req, ctx) {
      const caller = callerOf(ctx);
      // An action of the org acted in, or of the resource owner org the caller names (its own or on the Action Hub).
      const ownerOrgId = caller.resourceOwnerId ?? requireOrg(caller);
      const member = readableOrg(caller) === ownerOrgId;
      const { action, version } = await getAction(uow, { ownerOrgId, member, name: req.name, digest: req.digest });
      return { action: version ? actionDefinitionToProto(action, version) : actionToProto(action) };
    },

    async updateAction(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = changeableOrg(caller, req.name);
      const action = await updateAction(uow, caller.subject, {
        orgId,
        name: req.name,
        definition: updateChangesFromProto(req),
        parameters: req.parameterChangeset ? parameterChangesFromProto(req.parameterChangeset) : undefined,
        inherits: inheritsFromValue(req.inherits),
        metadata: req.metadataChangeset,
      });
      return { action: actionToProto(action) };
    },

    async deleteAction(req, ctx) {
      await deleteAction(uow, changeableOrg(callerOf(ctx), req.name), req.name);
      // The deletion's ComputeEntityDeleted event is in the outbox: wake the relay rather than wait for its poll.
      eventsWritten();
      return {};
    },

    async setActionAccessibility(req, ctx) {
      const caller = callerOf(ctx);
      const accessibility = checkAccessibility(req.accessibility);
      const orgId = changeableOrg(caller, req.name);
      const action = await setActionAccessibility(uow, caller.subject, { orgId, name: req.name, accessibility, digest: req.digest });
      return { action: actionToProto(action) };
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
      return { keys: orgId ? await listActionMetadataKeys(uow, orgId) : [] };
    },
  };

  async function pageOf(plan: SearchPlan, scope: ActionScope) {
    const { rows, hasMore, cursors, total } = await searchActions(uow, scope, plan);
    // The next page starts after the last action kept: fitPage may keep fewer than were read.
    const items = fitPage(ActionSchema, rows.map(actionToProto));
    const nextToken = plan.nextToken(cursors[items.length - 1], hasMore || items.length < rows.length);
    return { items, ...(total !== undefined ? { totalCount: BigInt(total) } : {}), ...(nextToken ? { nextToken } : {}) };
  }
}

/** The org whose action the caller may change: one it belongs to; an action of any other org is not found. */
function changeableOrg(caller: Principal, name: string): string {
  const orgId = readableOrg(caller);
  if (!orgId) throw notFound("action", name);
  return orgId;
}
