import { startPeriodicTask, type Logger, type PeriodicTask, type UnitOfWork } from "@hangar/shared";
import { isRunning, moveInvocation } from "./invocation-lifecycle";
import { InvocationStatus, isTerminal } from "./invocation-status";
import type { LeaseSettings } from "./leases";
import type { InvocationRecord } from "./records";
import type { SweeperRepositories } from "./repositories";

/** Invocations one sweep looks at, at most; the next sweep takes the rest. */
const SWEEP_BATCH = 100;

/**
 * Applies the first sweeper rule that holds for an unfinished invocation, returning whether one did:
 * past its timeout it fails; a lapsed lease sends it back to the queue (Failed, then Queued) until
 * it has been claimed `maxAttempts` times, then fails it; running without a lease and without a
 * heartbeat for `heartbeatTimeoutMs` it fails.
 */
export function sweepInvocation(row: InvocationRecord, settings: LeaseSettings, now = new Date()): boolean {
  if (isTerminal(row.lastStatus)) return false;
  if (row.started && row.started.getTime() + row.timeout * 60_000 < now.getTime()) {
    moveInvocation(row, InvocationStatus.Failed, `timed out after ${row.timeout} min`, now);
    return true;
  }
  if (row.leaseId && row.leaseExpires && row.leaseExpires < now) {
    requeueOrFail(row, settings, now);
    return true;
  }
  const lastSign = row.lastHeartbeat ?? row.started ?? row.created;
  if (!row.leaseId && isRunning(row.lastStatus) && lastSign.getTime() < now.getTime() - settings.heartbeatTimeoutMs) {
    moveInvocation(row, InvocationStatus.Failed, `no heartbeat since ${lastSign.toISOString()}`, now);
    return true;
  }
  return false;
}

function requeueOrFail(row: InvocationRecord, settings: LeaseSettings, now: Date): void {
  if (row.attempts >= settings.maxAttempts) {
    moveInvocation(row, InvocationStatus.Failed, `lost its runner ${row.attempts} times`, now);
    return;
  }
  moveInvocation(row, InvocationStatus.Failed, `runner ${row.leaseRunner} lost its lease`, now);
  moveInvocation(row, InvocationStatus.Queued, `retry ${row.attempts}`, now);
}

/** Applies the sweeper rules to every candidate once; each under its own row lock, so a runner's concurrent report wins or waits. */
export async function sweepOnce(uow: UnitOfWork<SweeperRepositories>, settings: LeaseSettings, now = new Date()): Promise<number> {
  const candidates = await uow.repositories().leases.sweepCandidates(now, new Date(now.getTime() - settings.heartbeatTimeoutMs), SWEEP_BATCH);
  let moved = 0;
  for (const invocationId of candidates) {
    const swept = await uow.transaction(async ({ leases }) => {
      const row = await leases.lock({ invocationId });
      if (row === null || !sweepInvocation(row, settings, now)) return false;
      await leases.update(row);
      return true;
    });
    if (swept) moved += 1;
  }
  return moved;
}

/** Sweeps every `sweepIntervalMs` until stopped; a failed sweep is logged and the loop goes on. */
export function startSweeper(options: { uow: UnitOfWork<SweeperRepositories>; settings: LeaseSettings; logger: Logger }): PeriodicTask {
  return startPeriodicTask({
    name: "invocation sweep",
    intervalMs: options.settings.sweepIntervalMs,
    run: () => sweepOnce(options.uow, options.settings),
    logger: options.logger,
  });
}
