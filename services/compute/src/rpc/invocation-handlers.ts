import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { callerOf, definedOnly, notFound, parseIsoTimestamp, readableOrg, requireOrg, type Principal, type ServiceContext, fitPage } from "@hangar/shared";
import type { ComputeService } from "@hangar/shared/proto/compute";
import { InvocationSchema, LogRecordSchema } from "@hangar/shared/proto/compute";
import { activityBuckets, planActivity } from "../domain/invocation-activity";
import { checkGroupSpec } from "../domain/invocation-grouping";
import { BULK_CANCEL_BATCH_SIZE, cancelInvocation, checkDeletable, moveInvocation, recordHeartbeat } from "../domain/invocation-lifecycle";
import { decodeLogCursor, encodeLogCursor, LOG_PAGE_SIZE } from "../domain/invocation-log-cursor";
import { checkDataSourceType, invocationSource, objectStoreDestination, parseUploadDestination, storedUploadDestination } from "../domain/invocation-request";
import { invocationCondition, planInvocationSearch } from "../domain/invocation-search";
import { countByStatusName, epochWindow, isoWindow, queuedWorkSeconds, summaryLimit } from "../domain/invocation-stats";
import { checkStatus, isTerminal } from "../domain/invocation-status";
import { createInvocation } from "../domain/invoke";
import type { InvocationLogRecord, InvocationRecord } from "../domain/records";
import { InvocationStore, type RunSummaryRow } from "../store/invocation-store";
import { dataServiceClients } from "../data-service-clients";
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

/** The window queue_status takes the median run time over: the last 24 hours. */
const MEDIAN_WINDOW_MS = 24 * 60 * 60 * 1000;

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
export function createInvocationHandlers(context: ServiceContext, concurrencyLimit: number): InvocationHandlers {
  const store = () => new InvocationStore(context.orm.em.fork());
  const datasets = datasetChecker(context);

  const load = async (caller: Principal, invocationId: string): Promise<InvocationRecord> => {
    const orgId = readableOrg(caller);
    const row = orgId ? await store().find(orgId, invocationId) : null;
    if (!row) throw notFound("invocation", invocationId);
    return row;
  };

  // Read, check and write under the row lock, so two racing changes cannot both apply to the same state.
  const update = (caller: Principal, invocationId: string, change: (row: InvocationRecord, s: InvocationStore) => unknown): Promise<InvocationRecord> =>
    context.orm.em.fork().transactional(async (em) => {
      const s = new InvocationStore(em);
      const orgId = readableOrg(caller);
      const row = orgId ? await s.lock(orgId, invocationId) : null;
      if (!row) throw notFound("invocation", invocationId);
      await change(row, s);
      return row;
    });

  return {
    async invokeAction(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = requireOrg(caller);
      const dataSourceType = checkDataSourceType(req.dataSourceType);
      const source = invocationSource(req.invocationSource, req.invocationSourceId, caller.subject);
      const destination = parseUploadDestination(valueJson(req.uploadDestination));
      await datasets.require(orgId, req.dataSourceId);
      if (destination && "datasetId" in destination) await datasets.require(orgId, destination.datasetId);
      const { row } = await createInvocation(context.orm.em.fork(), {
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
      return { invocation: invocationToProto(await load(callerOf(ctx), req.invocationId)) };
    },

    async cancelInvocation(req, ctx) {
      const caller = callerOf(ctx);
      const row = await update(caller, req.invocationId, (r) => cancelInvocation(r, caller.subject));
      return { invocation: invocationToProto(row) };
    },

    async heartbeatInvocation(req, ctx) {
      await update(callerOf(ctx), req.invocationId, (r) => recordHeartbeat(r));
      return { result: {} };
    },

    async deleteInvocation(req, ctx) {
      await update(callerOf(ctx), req.invocationId, async (row, s) => {
        checkDeletable(row);
        await s.remove(row.invocationId);
      });
      return {};
    },

    async setInvocationImageDigest(req, ctx) {
      const row = await update(callerOf(ctx), req.invocationId, (r) => (r.containerImageDigest = req.imageDigest));
      return { invocation: invocationToProto(row) };
    },

    async setUploadDestination(req, ctx) {
      const destination = objectStoreDestination(req.bucket, req.prefix);
      const row = await update(callerOf(ctx), req.invocationId, (r) => (r.uploadDestination = destination));
      return { invocation: invocationToProto(row) };
    },

    async setInvocationStatus(req, ctx) {
      const status = checkStatus(req.status ?? Number.NaN, "status");
      const row = await update(callerOf(ctx), req.invocationId, (r) => moveInvocation(r, status, req.detail ?? null));
      return { invocation: invocationToProto(row) };
    },

    async getLogs(req, ctx) {
      const row = await load(callerOf(ctx), req.invocationId);
      const after = decodeLogCursor(row.invocationId, req.pageToken, "page_token");
      const s = store();
      const [lines, total] = await Promise.all([s.logsAfter(row.invocationId, after, LOG_PAGE_SIZE + 1), s.logCount(row.invocationId)]);
      const items = fitPage(LogRecordSchema, lines.slice(0, LOG_PAGE_SIZE).map(logToProto));
      const page = lines.slice(0, items.length);
      const more = lines.length > page.length;
      return {
        items,
        ...(more ? { nextToken: encodeLogCursor(row.invocationId, Number(page.at(-1)!.seq)) } : {}),
        totalCount: BigInt(total),
      };
    },

    async streamLogs(req, ctx) {
      // The status is read before the lines: lines written before the invocation ended are then
      // either in this batch or reported by has_next, never lost between the two reads.
      const row = await load(callerOf(ctx), req.invocationId);
      const after = decodeLogCursor(row.invocationId, req.lastRead, "last_read");
      const lines = await store().logsAfter(row.invocationId, after, LOG_PAGE_SIZE + 1);
      const items = fitPage(LogRecordSchema, lines.slice(0, LOG_PAGE_SIZE).map(logToProto));
      const batch = lines.slice(0, items.length);
      const unchanged = req.lastRead === "None" ? "" : (req.lastRead ?? "");
      return {
        items,
        lastRead: batch.length > 0 ? encodeLogCursor(row.invocationId, Number(batch.at(-1)!.seq)) : unchanged,
        hasNext: !isTerminal(row.lastStatus) || lines.length > batch.length,
      };
    },

    async bulkCancelInvocations(req, ctx) {
      const caller = callerOf(ctx);
      const before = req.createdBefore ? parseIsoTimestamp(req.createdBefore, "created_before") : new Date();
      const orgId = readableOrg(caller);
      if (!orgId) return { successCount: 0n, failureCount: 0n, hasMore: false };
      const cancelled = await context.orm.em.fork().transactional(async (em) => {
        const rows = await new InvocationStore(em).lockActiveBefore(orgId, before, BULK_CANCEL_BATCH_SIZE);
        const now = new Date();
        for (const row of rows) cancelInvocation(row, caller.subject, now);
        return rows.length;
      });
      // Every locked invocation was unfinished, so none can refuse Cancelled: failures stay 0.
      return { successCount: BigInt(cancelled), failureCount: 0n, hasMore: await store().hasActiveBefore(orgId, before) };
    },

    async summarizeRunsByAction(req, ctx) {
      const orgId = requireOrg(callerOf(ctx));
      const rows = await store().runSummaries(orgId, isoWindow(req.startTime, req.endTime));
      return { items: rows.map(runSummaryToProto), totalCount: BigInt(rows.length) };
    },

    async listRunSummaries(req, ctx) {
      const orgId = requireOrg(callerOf(ctx));
      const window = epochWindow(req.startTime, req.endTime);
      const rows = await store().runSummaries(orgId, window, summaryLimit(req.limit));
      return { items: rows.map(runSummaryToProto) };
    },

    async queryInvocations(req, ctx) {
      const plan = planInvocationSearch(req.query ?? {});
      const orgId = readableOrg(callerOf(ctx));
      if (!orgId) return { items: [], totalCount: 0n };
      const { rows, hasMore, cursors, total } = await store().search(orgId, plan);
      // The next page starts after the last invocation kept: fitPage may keep fewer than were read.
      const items = fitPage(InvocationSchema, rows.map((row) => invocationToProto(row)));
      const nextToken = plan.nextToken(cursors[items.length - 1], hasMore || items.length < rows.length);
      return { items, ...(nextToken ? { nextToken } : {}), ...(total !== undefined ? { totalCount: BigInt(total) } : {}) };
    },

    async getQueueStatus(_req, ctx) {
      const orgId = requireOrg(callerOf(ctx));
      const s = store();
      const [counts, median] = await Promise.all([s.countByStatus(orgId), s.medianCompletedSeconds(orgId, new Date(Date.now() - MEDIAN_WINDOW_MS))]);
      const countByStatus = countByStatusName(counts);
      return {
        countByStatus: bigintValues(countByStatus),
        orgId,
        concurrencyLimit: BigInt(concurrencyLimit),
        ...(median !== null ? { medianDurationSeconds: median } : {}),
        queuedWorkSeconds: queuedWorkSeconds(countByStatus.Queued ?? 0, median),
      };
    },

    async getLegacyQueueStatus(_req, ctx) {
      const orgId = requireOrg(callerOf(ctx));
      const counts = await store().countByStatus(orgId);
      return { countByStatus: bigintValues(countByStatusName(counts)), orgId, limits: { concurrencyLimit: BigInt(concurrencyLimit) } };
    },

    async activityBuckets(req, ctx) {
      const orgId = requireOrg(callerOf(ctx));
      const plan = planActivity(isoWindow(req.startTime, req.endTime), req.period);
      const sources = await store().activitySources(orgId, plan.window, invocationCondition(valueJson(req.condition)));
      return {
        period: plan.period,
        startTime: timestampFromDate(plan.window.start),
        endTime: timestampFromDate(plan.window.end),
        buckets: activityBuckets(sources, plan, new Date()).map((b) => ({
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
      const spec = checkGroupSpec(req.statuses, req.groupBy, req.limit);
      const { groups, total } = await store().groups(orgId, spec, invocationCondition(valueJson(req.condition)));
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

/** Checks that a dataset exists in an org by asking the data service. */
function datasetChecker(context: ServiceContext) {
  const clientFor = dataServiceClients(context);
  return {
    async require(orgId: string, datasetId: string): Promise<void> {
      try {
        await clientFor(orgId).getDataset({ datasetId });
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.NotFound) throw notFound("dataset", datasetId);
        throw error;
      }
    },
  };
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

function runSummaryToProto(row: RunSummaryRow) {
  return {
    actionName: row.actionName,
    actionOrgId: row.actionOrgId,
    completedCount: BigInt(row.completed),
    failCount: BigInt(row.failed),
    queuedCount: BigInt(row.queued),
  };
}
