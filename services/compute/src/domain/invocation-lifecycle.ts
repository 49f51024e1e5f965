import { failedPrecondition } from "@hangar/shared";
import type { InvocationRecord } from "./records";
import { canTransition, InvocationStatus, isTerminal, statusName } from "./invocation-status";

const RUNNING = new Set<number>([InvocationStatus.Scheduled, InvocationStatus.Downloading, InvocationStatus.Processing, InvocationStatus.Uploading]);

/** Scheduled through Uploading: a runner holds the invocation (what peak concurrency and compute credit count). */
export function isRunning(status: number): boolean {
  return RUNNING.has(status);
}

/**
 * Moves an invocation to `to` under the wire-notes transition rules, appending `{status, detail,
 * timestamp}` to its history. Entering a terminal status stamps `finished` and releases the runner
 * lease; a retry (Failed -> Queued) clears `finished`; the first running status stamps `started`
 * when no runner claim did. A refused move is a 400 naming both statuses.
 */
export function moveInvocation(row: InvocationRecord, to: number, detail: string | null, now = new Date()): void {
  if (!canTransition(row.lastStatus, to)) {
    throw failedPrecondition(`cannot move invocation from ${statusName(row.lastStatus)} to ${statusName(to)}`);
  }
  row.statusHistory = [...row.statusHistory, { status: to, detail, timestamp: now.toISOString() }];
  row.lastStatus = to;
  if (isTerminal(to)) {
    row.finished = now;
    row.leaseId = null;
    row.leaseRunner = null;
    row.leaseExpires = null;
  } else {
    row.finished = null;
  }
  if (isRunning(to) && row.started === null) row.started = now;
}

/**
 * Cancels an invocation on behalf of `user`. An invocation already Cancelled is left as it is, so
 * a repeated cancel (clients retry POSTs) succeeds; one that ended otherwise is refused like any
 * other disallowed move.
 */
export function cancelInvocation(row: InvocationRecord, user: string, now = new Date()): void {
  if (row.lastStatus === InvocationStatus.Cancelled) return;
  moveInvocation(row, InvocationStatus.Cancelled, `cancelled by ${user}`, now);
}

/** How many invocations one bulk cancel call cancels at most; callers repeat while `has_more`. */
export const BULK_CANCEL_BATCH_SIZE = 500;

/** Records a heartbeat; an invocation that has ended has nothing left to report on. */
export function recordHeartbeat(row: InvocationRecord, now = new Date()): void {
  if (isTerminal(row.lastStatus)) {
    throw failedPrecondition(`invocation ${row.invocationId} is ${statusName(row.lastStatus)}: heartbeats are only accepted while it runs`);
  }
  row.lastHeartbeat = now;
}

/** Only an invocation that has ended may be deleted, so a runner never loses the record it works on. */
export function checkDeletable(row: InvocationRecord): void {
  if (!isTerminal(row.lastStatus)) {
    throw failedPrecondition(`invocation ${row.invocationId} is ${statusName(row.lastStatus)}: cancel it first`);
  }
}
