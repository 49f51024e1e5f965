import { startPeriodicTask, type Logger, type PeriodicTask, type UnitOfWork } from "@hangar/shared";
import { completeDueSessions, type SessionRepositories } from "./session-use-cases";

/** How sessions complete by inactivity. */
export interface SessionCompletionOptions {
  /** The pause between sweeps (default 30 s): a session completes at most this late. */
  intervalMs?: number;
  /** Sessions completed per transaction (default 100); a sweep goes on until none is due. */
  batchSize?: number;
  /** The time sweeps compare `completes_at` with (default the wall clock); tests move it. */
  now?: () => Date;
}

/**
 * Starts the sweep that completes in-progress sessions whose completion policy's inactivity has
 * run out (`completes_at` passed), in batches of one transaction each; replicas skip each
 * other's rows. Returns the task, which the service stops.
 */
export function startSessionCompletion(deps: { uow: UnitOfWork<SessionRepositories>; logger: Logger }, options: SessionCompletionOptions = {}): PeriodicTask {
  const batchSize = options.batchSize ?? 100;
  const now = options.now ?? (() => new Date());
  return startPeriodicTask({
    name: "session completion",
    intervalMs: options.intervalMs ?? 30_000,
    logger: deps.logger,
    run: async () => {
      let completed = 0;
      for (let batch = batchSize; batch === batchSize; completed += batch) batch = await completeDueSessions(deps.uow, now(), batchSize);
      return completed;
    },
  });
}
