import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, definedOnly, fitPage, notFound, parseIsoTimestamp, readableOrg, requireOrg, type Principal, type UnitOfWork } from "@hangar/shared";
import type { ComputeService } from "@hangar/shared/proto/compute";
import { InvocationSchema, LogRecordSchema } from "@hangar/shared/proto/compute";
import type { DatasetDirectory } from "../domain/datasets";
import { encodeLogCursor, LOG_PAGE_SIZE } from "../domain/invocation-log-cursor";
import { checkDataSourceType, invocationSource, objectStoreDestination, parseUploadDestination, storedUploadDestination } from "../domain/invocation-request";
import { countByStatus, groupInvocations, invocationActivity, queueStatus, searchInvocations, summarizeRuns } from "../domain/invocation-reports";
import { planInvocationSearch } from "../domain/invocation-search";
import { epochWindow, isoWindow, summaryLimit } from "../domain/invocation-stats";
import { checkStatus, isTerminal } from "../domain/invocation-status";
import {
  bulkCancelInvocations,
  cancelInvocationAs,
  deleteInvocation,
  getInvocation,
  heartbeatInvocation,
  invokeAction,
  readLogs,
  setInvocationImageDigest,
  setInvocationStatus,
  setUploadDestination,
  type InvocationRef,
} from "../domain/manage-invocations";
import type { InvocationLogRecord } from "../domain/records";
import type { InvocationRepositories, RunSummary } from "../domain/repositories";
import { invocationToProto } from "./invocation-mappers";
import { computeRequirementsJson, containerParametersJson, valueJson } from "./wire-json";

type InvocationHandlers = Pick<
  ServiceImpl<typeof ComputeService>,
  | "invokeAction"
  | "getInvocation"
  | "cancelInvocation"
  | "heartbeatInvocation"
  | "deleteInvocation"
  | "setInvocationImageDigest"
  | "setUploadDestination"
  | "setInvocationStatus"
  | "getLogs"
  | "streamLogs"
  | "bulkCancelInvocations"
  | "summarizeRunsByAction"
  | "listRunSummaries"
  | "queryInvocations"
  | "getQueueStatus"
  | "getLegacyQueueStatus"
  | "activityBuckets"
  | "groupInvocations"
>;

/**
 * Implements the operations on invocations of hangar.compute.v1.ComputeService.
 *
 * The spec names three body-less operations on an invocation by their answers only (routes.md
 * guesses which is which). Here: cancel (POST .../cancel) answers the Invocation; heartbeat
 * (POST .../heartbeat) answers `data: {}` and is refused once the invocation has ended; delete
 * (DELETE .../{id}) answers `data: null` and only removes invocations that have ended (with their
 * logs), so a running invocation must be cancelled first.
 *
 * Per-invocation operations and invocation searches address the caller's org (or the resource
 * owner named by the caller, when a member of it); another org's invocation is a 404. Statistics
 * cover the caller's acting org only.
 */
export function createInvocationHandlers(deps: {
  uow: UnitOfWork<InvocationRepositories>;
  datasets: DatasetDirectory;
  /** How many invocations of one org may run at once, as queue_status reports it. */
  concurrencyLimit: number;
  /** Wakes the outbox relay after a commit that recorded events. */
  eventsWritten(): void;
}): InvocationHandlers {
  const { uow, datasets, concurrencyLimit, eventsWritten } = deps;
  return {
    async invokeAction(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = requireOrg(caller);
      const dataSourceType = checkDataSourceType(req.dataSourceType);
      const source = invocationSource(req.invocationSource, req.invocationSourceId, caller.subject);
      const destination = parseUploadDestination(valueJson(req.uploadDestination));
      const row = await invokeAction(uow, datasets, {
        orgId,
        submitter: caller.subject,
        // The action may belong to another org (an Action Hub action), named as the resource owner.
        action: { name: req.name, ownerOrgId: caller.resourceOwnerId ?? orgId, digest: req.digest || undefined },
        dataSource: { type: dataSourceType, id: req.dataSourceId },
        inputData: req.inputData,
        richInputData: valueJson(req.richInputData) ?? null,
        uploadDestination: destination ? storedUploadDestination(destination) : null,
        idempotencyId: req.idempotencyId || undefined,
        computeRequirementOverrides: req.computeRequirementOverrides ? computeRequirementsJson(req.computeRequirementOverrides) : null,
        containerParameterOverrides: req.containerParameterOverrides ? containerParametersJson(req.containerParameterOverrides) : null,
        parameterValues: req.parameterValues ?? {},
        timeout: req.timeout === undefined ? undefined : Number(req.timeout),
        source,
      });
      return { invocation: invocationToProto(row) };
    },

    async getInvocation(req, ctx) {
      return { invocation: invocationToProto(await getInvocation(uow, refOf(callerOf(ctx), req.invocationId))) };
    },

    async cancelInvocation(req, ctx) {
      const caller = callerOf(ctx);
      return { invocation: invocationToProto(await cancelInvocationAs(uow, refOf(caller, req.invocationId), caller.subject)) };
    },

    async heartbeatInvocation(req, ctx) {
      await heartbeatInvocation(uow, refOf(callerOf(ctx), req.invocationId));
      return { result: {} };
    },

    async deleteInvocation(req, ctx) {
      await deleteInvocation(uow, refOf(callerOf(ctx), req.invocationId));
      // The deletion's ComputeEntityDeleted event is in the outbox: wake the relay rather than wait for its poll.
      eventsWritten();
      return {};
    },

    async setInvocationImageDigest(req, ctx) {
      return { invocation: invocationToProto(await setInvocationImageDigest(uow, refOf(callerOf(ctx), req.invocationId), req.imageDigest)) };
    },

    async setUploadDestination(req, ctx) {
      const destination = objectStoreDestination(req.bucket, req.prefix);
      return { invocation: invocationToProto(await setUploadDestination(uow, refOf(callerOf(ctx), req.invocationId), destination)) };
    },

    async setInvocationStatus(req, ctx) {
      const status = checkStatus(req.status ?? Number.NaN, "status");
      return { invocation: invocationToProto(await setInvocationStatus(uow, refOf(callerOf(ctx), req.invocationId), status, req.detail ?? null)) };
    },

    async getLogs(req, ctx) {
      const { invocation, lines, total } = await readLogs(uow, refOf(callerOf(ctx), req.invocationId), { cursor: req.pageToken, field: "page_token", count: true });
      const items = fitPage(LogRecordSchema, lines.slice(0, LOG_PAGE_SIZE).map(logToProto));
      const page = lines.slice(0, items.length);
      const more = lines.length > page.length;
      return {
        items,
        ...(more ? { nextToken: encodeLogCursor(invocation.invocationId, Number(page.at(-1)!.seq)) } : {}),
        totalCount: BigInt(total ?? 0),
      };
    },

    async streamLogs(req, ctx) {
      const { invocation, lines } = await readLogs(uow, refOf(callerOf(ctx), req.invocationId), { cursor: req.lastRead, field: "last_read", count: false });
      const items = fitPage(LogRecordSchema, lines.slice(0, LOG_PAGE_SIZE).map(logToProto));
      const batch = lines.slice(0, items.length);
      const unchanged = req.lastRead === "None" ? "" : (req.lastRead ?? "");
      return {
        items,
        lastRead: batch.length > 0 ? encodeLogCursor(invocation.invocationId, Number(batch.at(-1)!.seq)) : unchanged,
        hasNext: !isTerminal(invocation.lastStatus) || lines.length > batch.length,
      };
    },

    async bulkCancelInvocations(req, ctx) {
      const caller = callerOf(ctx);
      const before = req.createdBefore ? parseIsoTimestamp(req.createdBefore, "created_before") : new Date();
      const orgId = readableOrg(caller);
      if (!orgId) return { successCount: 0n, failureCount: 0n, hasMore: false };
      const { cancelled, hasMore } = await bulkCancelInvocations(uow, orgId, before, caller.subject);
      // Every locked invocation was unfinished, so none can refuse Cancelled: failures stay 0.
      return { successCount: BigInt(cancelled), failureCount: 0n, hasMore };
    },

    async summarizeRunsByAction(req, ctx) {
      const orgId = requireOrg(callerOf(ctx));
      const rows = await summarizeRuns(uow, orgId, isoWindow(req.startTime, req.endTime));
      return { items: rows.map(runSummaryToProto), totalCount: BigInt(rows.length) };
    },

    async listRunSummaries(req, ctx) {
      const orgId = requireOrg(callerOf(ctx));
      const window = epochWindow(req.startTime, req.endTime);
      const rows = await summarizeRuns(uow, orgId, window, summaryLimit(req.limit));
      return { items: rows.map(runSummaryToProto) };
    },

    async queryInvocations(req, ctx) {
      const plan = planInvocationSearch(req.query ?? {});
      const orgId = readableOrg(callerOf(ctx));
      if (!orgId) return { items: [], totalCount: 0n };
      const { rows, hasMore, cursors, total } = await searchInvocations(uow, orgId, plan);
      // The next page starts after the last invocation kept: fitPage may keep fewer than were read.
      const items = fitPage(InvocationSchema, rows.map((row) => invocationToProto(row)));
      const nextToken = plan.nextToken(cursors[items.length - 1], hasMore || items.length < rows.length);
      return { items, ...(nextToken ? { nextToken } : {}), ...(total !== undefined ? { totalCount: BigInt(total) } : {}) };
    },

    async getQueueStatus(_req, ctx) {
      const orgId = requireOrg(callerOf(ctx));
      const status = await queueStatus(uow, orgId);
      return {
        countByStatus: bigintValues(status.countByStatus),
        orgId,
        concurrencyLimit: BigInt(concurrencyLimit),
        ...(status.medianDurationSeconds !== null ? { medianDurationSeconds: status.medianDurationSeconds } : {}),
        queuedWorkSeconds: status.queuedWorkSeconds,
      };
    },

    async getLegacyQueueStatus(_req, ctx) {
      const orgId = requireOrg(callerOf(ctx));
      const counts = await countByStatus(uow, orgId);
      return { countByStatus: bigintValues(counts), orgId, limits: { concurrencyLimit: BigInt(concurrencyLimit) } };
    },

    async activityBuckets(req, ctx) {
      const orgId = requireOrg(callerOf(ctx));
      const window = isoWindow(req.startTime, req.endTime);
      const { plan, buckets } = await invocationActivity(uow, orgId, { window, period: req.period, condition: valueJson(req.condition) });
      return {
        period: plan.period,
        startTime: timestampFromDate(plan.window.start),
        endTime: timestampFromDate(plan.window.end),
        buckets: buckets.map((b) => ({
          periodStart: timestampFromDate(b.periodStart),
          peakInStatus: bigintValues(b.peakInStatus),
          peakConcurrency: BigInt(b.peakConcurrency),
          enteredStatus: bigintValues(b.enteredStatus),
          computeCreditMillionths: BigInt(b.computeCreditMillionths),
        })),
      };
    },

    async groupInvocations(req, ctx) {
      const orgId = requireOrg(callerOf(ctx));
      const request = { statuses: req.statuses, groupBy: req.groupBy, limit: req.limit, condition: valueJson(req.condition) };
      const { groups, total } = await groupInvocations(uow, orgId, request);
      return {
        groups: groups.map((g) => ({
          ...definedOnly({ actionOrgId: g.actionOrgId, actionName: g.actionName, sourceType: g.sourceType, sourceId: g.sourceId, triggerName: g.triggerName, submitter: g.submitter }),
          count: BigInt(g.count),
        })),
        totalCount: BigInt(total),
      };
    },
  };
}

/** The invocation an operation names, in the org the caller may read; another org's is not found. */
function refOf(caller: Principal, invocationId: string): InvocationRef {
  const orgId = readableOrg(caller);
  if (!orgId) throw notFound("invocation", invocationId);
  return { orgId, invocationId };
}

function bigintValues(record: Record<string, number>): Record<string, bigint> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, BigInt(value)]));
}

function logToProto(row: InvocationLogRecord) {
  return {
    ...(row.partialId !== null ? { partialId: row.partialId } : {}),
    log: row.log,
    process: row.process,
    timestamp: timestampFromDate(row.timestamp),
  };
}

function runSummaryToProto(row: RunSummary) {
  return {
    actionName: row.actionName,
    actionOrgId: row.actionOrgId,
    completedCount: BigInt(row.completed),
    failCount: BigInt(row.failed),
    queuedCount: BigInt(row.queued),
  };
}
