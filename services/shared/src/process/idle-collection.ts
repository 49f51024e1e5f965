import { performance, type EventLoopUtilization } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Gives memory back to the system once a process goes idle after work. Under load V8 keeps the
 * pages it grew into, and no collection runs while nothing allocates, so an idle platform held
 * 420-545 MiB after a load it started at 170-190 MiB (README "Benchmarks > Compute"); in a probe,
 * ordinary full collections left the process's RSS where it was, and one collection in V8's
 * memory-reducing mode ("last resort": it also releases V8's pooled free pages) took it from about
 * 700 to 75 MiB. That collection stops the thread for as long as a full one, so it runs only when
 * the event loop was nearly idle for a whole check and the process grew since the last one.
 */

/** How often the process looks at its event loop and size. */
export const IDLE_CHECK_MS = 10_000;
/**
 * Below this share of a check spent running, the process counts as idle. An idle platform's own
 * background work (outbox relays, the runner's poll, the sweeper) keeps its loop 2-4% busy.
 */
export const IDLE_UTILIZATION = 0.05;
/** How much the resident set must have grown since the last collection (or start) to collect again. */
export const GROWTH_BYTES = 32 * 1024 * 1024;

/** One check's readings. */
export interface IdleReading {
  /** The event loop's utilization over the check, 0 to 1. */
  utilization: number;
  /** The process's resident set, bytes. */
  rss: number;
}

/**
 * The policy: collect when a check was idle and the resident set is GROWTH_BYTES above `baseline`,
 * what it was after the last collection (at start, the process's first reading). A collection
 * that cannot shrink a process whose live data grew then waits for the next growth.
 */
export function idleCollectionDue(reading: IdleReading, baseline: number): boolean {
  return reading.utilization < IDLE_UTILIZATION && reading.rss > baseline + GROWTH_BYTES;
}

/** Runs a memory-reducing full collection (V8's `gc` from a fresh context: no flag on the command line, no global `gc`). */
function memoryReducingCollector(): () => void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as (options: { type: "major"; flavor: "last-resort" }) => void;
  return () => gc({ type: "major", flavor: "last-resort" });
}

/**
 * Starts the idle checks of this process (an unref'd timer: it never keeps a process alive).
 * `checkMs` and `collect` are for the specs. Returns a function that stops them.
 */
export function startIdleCollection(options: { checkMs?: number; collect?: () => void } = {}): () => void {
  const collect = options.collect ?? memoryReducingCollector();
  let baseline = process.memoryUsage.rss();
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const reading = { utilization: performance.eventLoopUtilization(now, last).utilization, rss: process.memoryUsage.rss() };
    last = now;
    if (!idleCollectionDue(reading, baseline)) return;
    collect();
    baseline = process.memoryUsage.rss();
  }, options.checkMs ?? IDLE_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
