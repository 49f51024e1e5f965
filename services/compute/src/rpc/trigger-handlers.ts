import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, fitPage, notFound, readableOrg, requireOrg, type KeysetPage, type Principal, type UnitOfWork, type UserDirectory } from "@hangar/shared";
import type { ComputeService } from "@hangar/shared/proto/compute";
import { TriggerSchema } from "@hangar/shared/proto/compute";
import type { DatasetDirectory } from "../domain/datasets";
import {
  createTrigger,
  deleteTrigger,
  getTrigger,
  listDatasetEvaluations,
  listTriggerEvaluations,
  searchTriggers,
  updateTrigger,
  type EvaluationPage,
  type TriggerRef,
} from "../domain/manage-triggers";
import { createModelTrigger, type TriggerModelDeps } from "../domain/manage-trigger-model";
import type { TriggerRepositories } from "../domain/repositories";
import { planEvaluationPage } from "../domain/trigger-evaluation";
import { getScheduledTrigger } from "../domain/scheduled-triggers";
import { checkTriggerName, evaluationListingKind, planTriggerSearch } from "../domain/triggers";
import { createChangesFromProto, dispatchAsEvaluation, evaluationToProto, isModelBody, requireLegacyFields, triggerToProto, updateChangesFromProto } from "./trigger-mappers";
import { valueJson } from "./wire-json";

type TriggerHandlers = Pick<
  ServiceImpl<typeof ComputeService>,
  "createTrigger" | "getTrigger" | "updateTrigger" | "deleteTrigger" | "queryTriggers" | "listTriggerEvaluations" | "listDatasetTriggerEvaluations"
>;

/** What the trigger operations run on: the users runs-as decisions are about, the data service's datasets, the 0.62 model's deps. */
export interface TriggerHandlerDeps {
  uow: UnitOfWork<TriggerRepositories>;
  users: UserDirectory;
  datasets: DatasetDirectory;
  model: TriggerModelDeps;
  /** Wakes the outbox relay after a commit that recorded events. */
  eventsWritten(): void;
}

/** Implements the operations on triggers of hangar.compute.v1.ComputeService. */
export function createTriggerHandlers({ uow, users, datasets, model, eventsWritten }: TriggerHandlerDeps): TriggerHandlers {
  return {
    async createTrigger(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = requireOrg(caller);
      const name = checkTriggerName(req.name);
      if (isModelBody(req)) {
        const definition = { firesOn: valueJson(req.firesOn), condition: valueJson(req.condition), targets: valueJson(req.targets) };
        const input = { orgId, name, definition, enabled: req.enabled ?? true, serviceUserGiven: req.serviceUserId !== undefined };
        return { trigger: triggerToProto(await createModelTrigger(model, caller, input)) };
      }
      requireLegacyFields(req);
      const trigger = await createTrigger(uow, users, caller, { orgId, name, changes: createChangesFromProto(req), activeLimit: model.activeTriggerLimit });
      return { trigger: triggerToProto(trigger) };
    },

    async getTrigger(req, ctx) {
      return { trigger: triggerToProto(await getTrigger(uow, refOf(callerOf(ctx), req.name))) };
    },

    async updateTrigger(req, ctx) {
      const caller = callerOf(ctx);
      const changes = updateChangesFromProto(req);
      return { trigger: triggerToProto(await updateTrigger(uow, users, caller, { ...refOf(caller, req.name), changes, activeLimit: model.activeTriggerLimit })) };
    },

    async deleteTrigger(req, ctx) {
      await deleteTrigger(uow, refOf(callerOf(ctx), req.name));
      // The deletion's ComputeEntityDeleted event is in the outbox: wake the relay rather than wait for its poll.
      eventsWritten();
      return {};
    },

    async queryTriggers(req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      // Planned before the org check, so bad input is a 400 for every caller.
      const plan = planTriggerSearch(req.query ?? {});
      if (!orgId) return { items: [], totalCount: 0n };
      const { rows, hasMore, cursors, total } = await searchTriggers(uow, orgId, plan);
      // The next page starts after the last trigger kept: fitPage may keep fewer than were read.
      const items = fitPage(TriggerSchema, rows.map(triggerToProto));
      const nextToken = plan.nextToken(cursors[items.length - 1], hasMore || items.length < rows.length);
      return { items, ...(total !== undefined ? { totalCount: BigInt(total) } : {}), ...(nextToken ? { nextToken } : {}) };
    },

    async listTriggerEvaluations(req, ctx) {
      if (evaluationListingKind(req.triggerType) === "scheduled") return scheduledHistory(model, readableOrg(callerOf(ctx)), req);
      const { page, evaluations } = await listTriggerEvaluations(uow, refOf(callerOf(ctx), req.name), { limit: req.limit, pageToken: req.pageToken });
      return evaluationsToProto(evaluations, page);
    },

    async listDatasetTriggerEvaluations(req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      const page = planEvaluationPage(req.limit, req.pageToken, `dataset:${req.datasetId}`);
      // Like every dataset route: a dataset the caller's org does not hold is a 404, not an empty list.
      if (!orgId) throw notFound("dataset", req.datasetId);
      return evaluationsToProto(await listDatasetEvaluations(uow, datasets, { orgId, datasetId: req.datasetId }, page), page);
    },
  };
}

/** The trigger an operation names, in the org the caller may read; another org's is not found. */
function refOf(caller: Principal, name: string): TriggerRef {
  const orgId = readableOrg(caller);
  if (!orgId) throw notFound("trigger", name);
  return { orgId, name };
}

/** A scheduled trigger's history as the legacy evaluations (ScheduledTrigger.get_evaluations): its dispatches, newest first. */
async function scheduledHistory(model: TriggerModelDeps, orgId: string | undefined, req: { name: string; limit?: bigint | undefined; pageToken?: string | undefined }) {
  const { trigger } = await getScheduledTrigger(model, orgId, { name: req.name });
  const page = planEvaluationPage(req.limit, req.pageToken, `dispatches:${trigger.triggerId}`);
  const { rows, hasMore, total } = await model.uow.repositories().triggerModel.dispatches(trigger.triggerId, page);
  const nextToken = page.nextToken(rows.length > 0 ? Number(rows.at(-1)!.dispatchId) : undefined, hasMore);
  return { items: rows.map(dispatchAsEvaluation), totalCount: BigInt(total), ...(nextToken ? { nextToken } : {}) };
}

function evaluationsToProto({ rows, hasMore, total }: EvaluationPage, page: KeysetPage) {
  const last = rows.at(-1);
  const nextToken = page.nextToken(last ? Number(last.triggerEvaluationId) : undefined, hasMore);
  return { items: rows.map(evaluationToProto), totalCount: BigInt(total), ...(nextToken ? { nextToken } : {}) };
}
