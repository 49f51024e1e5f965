import type { JsonObject } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, fitPage, invalidArgument, readableOrg } from "@hangar/shared";
import type { ComputeService } from "@hangar/shared/proto/compute";
import { TriggerSchema } from "@hangar/shared/proto/compute";
import { deleteModelTrigger, getModelTrigger, updateModelTrigger, type TriggerModelDeps } from "../domain/manage-trigger-model";
import type { TriggerDispatchRecord } from "../domain/records";
import { planEvaluationPage } from "../domain/trigger-evaluation";
import { dryRun, platformEventSamples, type EntityReader } from "../domain/trigger-dry-run";
import type { GateReaders } from "../domain/trigger-gates";
import { checkTriggerName, planTriggerSearch } from "../domain/triggers";
import { triggerToProto } from "./trigger-mappers";
import { valueJson } from "./wire-json";

type TriggerModelHandlers = Pick<
  ServiceImpl<typeof ComputeService>,
  "listTriggers" | "getTriggerById" | "updateTriggerById" | "deleteTriggerById" | "listTriggerDispatches" | "dryRunTrigger" | "getPlatformEventSamples"
>;

/** What the 0.62 trigger operations run on besides the model's deps: the data service's records and file checks per org. */
export interface TriggerModelHandlerDeps extends TriggerModelDeps {
  entities: EntityReader;
  gatesFor: (orgId: string) => GateReaders;
  /** Wakes the outbox relay after a commit that recorded events. */
  eventsWritten(): void;
}

/** Implements the `triggers (0.62 model)` operations of hangar.compute.v1.ComputeService. */
export function createTriggerModelHandlers(deps: TriggerModelHandlerDeps): TriggerModelHandlers {
  const { uow } = deps;
  return {
    async listTriggers(req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      const plan = planTriggerSearch({ limit: req.limit, after: req.pageToken });
      if (!orgId) return { items: [], totalCount: 0n };
      const { rows, hasMore, cursors, total } = await uow.repositories().triggers.search(orgId, plan, true);
      const items = fitPage(TriggerSchema, rows.map(triggerToProto));
      const nextToken = plan.nextToken(cursors[items.length - 1], hasMore || items.length < rows.length);
      return { items, ...(total !== undefined ? { totalCount: BigInt(total) } : {}), ...(nextToken ? { nextToken } : {}) };
    },

    async getTriggerById(req, ctx) {
      return { trigger: triggerToProto(await getModelTrigger(uow, readableOrg(callerOf(ctx)), req.triggerId)) };
    },

    async updateTriggerById(req, ctx) {
      const caller = callerOf(ctx);
      const name = valueJson(req.name);
      const enabled = valueJson(req.enabled);
      if (enabled !== undefined && enabled !== null && typeof enabled !== "boolean") throw invalidArgument("enabled", "must be a boolean");
      if (name !== undefined && name !== null && typeof name !== "string") throw invalidArgument("name", "must be a string");
      const changes = {
        ...(typeof name === "string" ? { name: checkTriggerName(name) } : {}),
        ...(typeof enabled === "boolean" ? { enabled } : {}),
        firesOn: nonNull(valueJson(req.firesOn)),
        condition: valueJson(req.condition),
        targets: nonNull(valueJson(req.targets)),
        serviceUserGiven: (valueJson(req.serviceUserId) ?? null) !== null,
      };
      return { trigger: triggerToProto(await updateModelTrigger(deps, caller, readableOrg(caller), req.triggerId, changes)) };
    },

    async deleteTriggerById(req, ctx) {
      await deleteModelTrigger(uow, readableOrg(callerOf(ctx)), req.triggerId);
      // The deletion's ComputeEntityDeleted event is in the outbox: wake the relay rather than wait for its poll.
      deps.eventsWritten();
      return {};
    },

    async listTriggerDispatches(req, ctx) {
      const trigger = await getModelTrigger(uow, readableOrg(callerOf(ctx)), req.triggerId);
      const page = planEvaluationPage(req.limit, req.pageToken, `dispatches:${trigger.triggerId}`);
      const { rows, hasMore, total } = await uow.repositories().triggerModel.dispatches(trigger.triggerId, page);
      const nextToken = page.nextToken(rows.length > 0 ? Number(rows.at(-1)!.dispatchId) : undefined, hasMore);
      return { items: rows.map(dispatchToProto), totalCount: BigInt(total), ...(nextToken ? { nextToken } : {}) };
    },

    async dryRunTrigger(req, ctx) {
      const trigger = await getModelTrigger(uow, readableOrg(callerOf(ctx)), req.triggerId);
      if (trigger.engine !== "v2") throw invalidArgument("trigger_id", "dry runs answer for triggers created with fires_on/targets; this one uses causes/for_each");
      const input = {
        event: nonNull(valueJson(req.event)),
        datasetId: req.datasetId,
        fileId: req.fileId,
        invocationId: req.invocationId,
        eventId: req.eventId,
        eventType: req.eventType,
        scheduledFor: req.scheduledFor ? timestampDate(req.scheduledFor) : undefined,
      };
      const readers = { ...deps.gatesFor(trigger.orgId), slots: (id: string, token: string) => uow.repositories().triggerModel.slots(id, token) };
      const result = await dryRun(trigger, input, deps.entities, readers, deps.clock());
      return { result };
    },

    async getPlatformEventSamples(_req, ctx) {
      const samples: JsonObject = platformEventSamples(readableOrg(callerOf(ctx)) ?? "og_sample");
      return { samples };
    },
  };
}

// A JSON null where a whole definition part is expected means "unchanged", as clients that send full models expect.
function nonNull<T>(value: T | null | undefined): T | undefined {
  return value === null ? undefined : value;
}

function dispatchToProto(row: TriggerDispatchRecord) {
  return {
    triggerId: row.triggerId,
    idempotencyToken: row.idempotencyToken,
    targetId: row.targetId,
    orgId: row.orgId,
    targetType: row.targetType,
    eventType: row.eventType,
    eventId: row.eventId,
    subject: row.subject,
    status: row.status,
    claimedAt: timestampFromDate(row.claimedAt),
    ...(row.datasetId !== null ? { datasetId: row.datasetId } : {}),
    ...(row.statusDetail !== null ? { statusDetail: row.statusDetail } : {}),
    ...(row.resultRef !== null ? { resultRef: row.resultRef } : {}),
    ...(row.finalizedAt !== null ? { finalizedAt: timestampFromDate(row.finalizedAt) } : {}),
  };
}
