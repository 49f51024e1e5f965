import type { JsonValue } from "@bufbuild/protobuf";
import type { SearchPlan, UnitOfWork } from "@hangar/shared";
import { activityBuckets, planActivity, type ActivityBucket, type ActivityPlan } from "./invocation-activity";
import { checkGroupSpec } from "./invocation-grouping";
import { invocationCondition } from "./invocation-search";
import { countByStatusName, queuedWorkSeconds, type TimeWindow } from "./invocation-stats";
import type { InvocationRecord } from "./records";
import type { InvocationGroup, InvocationRepositories, RunSummary, SearchPage } from "./repositories";

/** The window queue_status takes the median run time over: the last 24 hours. */
const MEDIAN_WINDOW_MS = 24 * 60 * 60 * 1000;

/** One page of a planned search of the org's invocations. */
export function searchInvocations(uow: UnitOfWork<InvocationRepositories>, orgId: string, plan: SearchPlan): Promise<SearchPage<InvocationRecord>> {
  return uow.repositories().invocations.search(orgId, plan);
}

/** Per action, the org's invocations created in the window by outcome, ordered by action name (at most `limit` actions). */
export function summarizeRuns(uow: UnitOfWork<InvocationRepositories>, orgId: string, window: TimeWindow, limit?: number): Promise<RunSummary[]> {
  return uow.repositories().invocations.runSummaries(orgId, window, limit);
}

/** The org's queue: invocations per status name (every status, 0 when none), the median run time of the last day, the queued work. */
export interface QueueStatus {
  countByStatus: Record<string, number>;
  medianDurationSeconds: number | null;
  queuedWorkSeconds: number;
}

/** The org's queue status as of `now`. */
export async function queueStatus(uow: UnitOfWork<InvocationRepositories>, orgId: string, now = new Date()): Promise<QueueStatus> {
  const { invocations } = uow.repositories();
  const [counts, median] = await Promise.all([invocations.countByStatus(orgId), invocations.medianCompletedSeconds(orgId, new Date(now.getTime() - MEDIAN_WINDOW_MS))]);
  const countByStatus = countByStatusName(counts);
  return { countByStatus, medianDurationSeconds: median, queuedWorkSeconds: queuedWorkSeconds(countByStatus.Queued ?? 0, median) };
}

/** How many invocations of every org wait for a runner: the queue the runners drain (the `hangar_runner_queue_depth` gauge). */
export async function runnerQueueDepth(uow: UnitOfWork<InvocationRepositories>): Promise<number> {
  return uow.repositories().invocations.countQueued();
}

/** Invocations per status name (every status, 0 when none). */
export async function countByStatus(uow: UnitOfWork<InvocationRepositories>, orgId: string): Promise<Record<string, number>> {
  return countByStatusName(await uow.repositories().invocations.countByStatus(orgId));
}

/**
 * The org's activity in a window, in buckets of `period` (checked, default 1h), over the
 * invocations matching `condition` (a Condition or ConditionGroup; errors name `condition`).
 */
export async function invocationActivity(
  uow: UnitOfWork<InvocationRepositories>,
  orgId: string,
  request: { window: TimeWindow; period: string | undefined; condition: JsonValue | undefined },
): Promise<{ plan: ActivityPlan; buckets: ActivityBucket[] }> {
  const plan = planActivity(request.window, request.period);
  const sources = await uow.repositories().invocations.activitySources(orgId, plan.window, invocationCondition(request.condition));
  return { plan, buckets: activityBuckets(sources, plan, new Date()) };
}

/** The org's invocations counted by the request's dimensions (checked: see checkGroupSpec), over those matching `condition`. */
export async function groupInvocations(
  uow: UnitOfWork<InvocationRepositories>,
  orgId: string,
  request: { statuses: readonly number[]; groupBy: readonly string[]; limit: bigint | undefined; condition: JsonValue | undefined },
): Promise<{ groups: InvocationGroup[]; total: number }> {
  const spec = checkGroupSpec(request.statuses, request.groupBy, request.limit);
  return uow.repositories().invocations.groups(orgId, spec, invocationCondition(request.condition));
}
