import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, conflict, newId, notFound, readableOrg, requireOrg, requireRunsAs, type KeysetPage, type Principal, type ServiceContext, quoteValue, fitPage } from "@hangar/shared";
import type { ComputeService } from "@hangar/shared/proto/compute";
import { TriggerSchema } from "@hangar/shared/proto/compute";
import { adminUserDirectory } from "../admin-user-directory";
import { dataServiceClients } from "../data-service-clients";
import { planEvaluationPage } from "../domain/trigger-evaluation";
import {
  applyTriggerChanges,
  changesAction,
  changesWhatRuns,
  checkEventDrivenListing,
  checkTriggerAction,
  checkTriggerName,
  newTriggerSettings,
  planTriggerSearch,
} from "../domain/triggers";
import type { TriggerRecord } from "../domain/records";
import { TriggerStore, type EvaluationScope } from "../store/trigger-store";
import { createChangesFromProto, evaluationToProto, triggerToProto, updateChangesFromProto } from "./trigger-mappers";

type TriggerHandlers = Pick<
  ServiceImpl<typeof ComputeService>,
  "createTrigger" | "getTrigger" | "updateTrigger" | "deleteTrigger" | "queryTriggers" | "listTriggerEvaluations" | "listDatasetTriggerEvaluations"
>;

/** Implements the operations on triggers of hangar.compute.v1.ComputeService. */
export function createTriggerHandlers(context: ServiceContext): TriggerHandlers {
  const store = () => new TriggerStore(context.orm.em.fork());
  const users = adminUserDirectory(context);
  const datasets = dataServiceClients(context);
  // Another org's trigger is reported as not found, like one that does not exist.
  const load = async (s: TriggerStore, caller: Principal, name: string, lock = false): Promise<TriggerRecord> => {
    const orgId = readableOrg(caller);
    const row = orgId ? await s.find(orgId, name, lock) : null;
    if (!row) throw notFound("trigger", name);
    return row;
  };

  return {
    async createTrigger(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = requireOrg(caller);
      const name = checkTriggerName(req.name);
      const settings = newTriggerSettings(createChangesFromProto(req), { orgId, createdBy: caller.subject });
      await requireRunsAs(caller, orgId, settings.serviceUserId, "service_user_id", users);
      const s = store();
      await checkTriggerAction(s.em, orgId, settings);
      const now = new Date();
      const by = caller.subject;
      const row: TriggerRecord = { ...settings, triggerId: newId("tr"), orgId, name, created: now, createdBy: by, modified: now, modifiedBy: by, serviceUserGrantedBy: by };
      if (!(await s.insert(row))) throw conflict(`name: a trigger named ${quoteValue(name)} already exists in org ${quoteValue(orgId)}`);
      return { trigger: triggerToProto(row) };
    },

    async getTrigger(req, ctx) {
      return { trigger: triggerToProto(await load(store(), callerOf(ctx), req.name)) };
    },

    async updateTrigger(req, ctx) {
      const caller = callerOf(ctx);
      const changes = updateChangesFromProto(req);
      // Locked for the update, so two edits at once cannot each apply to the same read.
      const row = await store().em.transactional(async (em) => {
        const row = await load(new TriggerStore(em), caller, req.name, true);
        const next = applyTriggerChanges(row, changes, { orgId: row.orgId, createdBy: row.createdBy });
        const regrants = changesWhatRuns(changes);
        if (regrants) await requireRunsAs(caller, row.orgId, next.serviceUserId, "service_user_id", users);
        // Unrelated edits (disabling a trigger) must work even when its action has changed since.
        if (changesAction(changes)) await checkTriggerAction(em, row.orgId, next);
        Object.assign(row, next, { modified: new Date(), modifiedBy: caller.subject }, regrants ? { serviceUserGrantedBy: caller.subject } : {});
        return row;
      });
      return { trigger: triggerToProto(row) };
    },

    async deleteTrigger(req, ctx) {
      const s = store();
      s.remove(await load(s, callerOf(ctx), req.name));
      await s.flush();
      return {};
    },

    async queryTriggers(req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      // Planned before the org check, so bad input is a 400 for every caller.
      const plan = planTriggerSearch(req.query ?? {});
      if (!orgId) return { items: [], totalCount: 0n };
      const { rows, hasMore, cursors, total } = await store().search(orgId, plan);
      // The next page starts after the last trigger kept: fitPage may keep fewer than were read.
      const items = fitPage(TriggerSchema, rows.map(triggerToProto));
      const nextToken = plan.nextToken(cursors[items.length - 1], hasMore || items.length < rows.length);
      return { items, ...(total !== undefined ? { totalCount: BigInt(total) } : {}), ...(nextToken ? { nextToken } : {}) };
    },

    async listTriggerEvaluations(req, ctx) {
      checkEventDrivenListing(req.triggerType, req.name);
      const s = store();
      const trigger = await load(s, callerOf(ctx), req.name);
      const page = planEvaluationPage(req.limit, req.pageToken, `trigger:${trigger.triggerId}`);
      return evaluationsPage(s, { triggerId: trigger.triggerId }, page);
    },

    async listDatasetTriggerEvaluations(req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      const page = planEvaluationPage(req.limit, req.pageToken, `dataset:${req.datasetId}`);
      // Like every dataset route: a dataset the caller's org does not hold is a 404, not an empty list.
      if (!orgId) throw notFound("dataset", req.datasetId);
      await datasets(orgId).getDataset({ datasetId: req.datasetId });
      return evaluationsPage(store(), { orgId, datasetId: req.datasetId }, page);
    },
  };
}

async function evaluationsPage(s: TriggerStore, scope: EvaluationScope, page: KeysetPage) {
  const { rows, hasMore, total } = await s.evaluations(scope, page);
  const last = rows.at(-1);
  const nextToken = page.nextToken(last ? Number(last.triggerEvaluationId) : undefined, hasMore);
  return { items: rows.map(evaluationToProto), totalCount: BigInt(total), ...(nextToken ? { nextToken } : {}) };
}
