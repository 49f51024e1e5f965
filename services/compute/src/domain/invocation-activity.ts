import { invalidArgument, quoteValue } from "@hangar/shared";
import type { StatusEntry } from "./records";
import { isRunning } from "./invocation-lifecycle";
import { isTerminal, statusName } from "./invocation-status";
import type { TimeWindow } from "./invocation-stats";

const PERIOD_MS: Record<string, number> = { "1m": 60_000, "5m": 300_000, "15m": 900_000, "1h": 3_600_000, "1d": 86_400_000 };

/** The bucket length when a request names none. */
export const DEFAULT_ACTIVITY_PERIOD = "1h";

/** The most buckets one report holds; a longer window needs a longer period. */
export const MAX_ACTIVITY_BUCKETS = 1000;

/** What one invocation contributes to an activity report. */
export interface ActivitySource {
  statusHistory: readonly StatusEntry[];
  /** Its vCPU units (1024 = one vCPU). */
  vCPU: number;
}

/** One period of activity. Status maps hold only statuses with a nonzero value. */
export interface ActivityBucket {
  periodStart: Date;
  /** Status name to the most invocations in it at once during the period (non-terminal statuses only). */
  peakInStatus: Record<string, number>;
  /** The most invocations running (Scheduled to Uploading) at once during the period. */
  peakConcurrency: number;
  /** Status name to how many times an invocation entered it during the period. */
  enteredStatus: Record<string, number>;
  /** Running time x vCPUs in the period, in millionths of a vCPU-second (1024 vCPU units for one second = 1,000,000). */
  computeCreditMillionths: number;
}

/** A validated activity request: the window, the period and the bucket starts. */
export interface ActivityPlan {
  window: TimeWindow;
  period: string;
  periodMs: number;
  starts: Date[];
}

/**
 * Plans the buckets: `period` one of `1m`, `5m`, `15m`, `1h`, `1d` (default `1h`), else a 400
 * naming `period`. Buckets start every period from the window's start (not aligned to the clock),
 * the last one cut at the window's end; more than MAX_ACTIVITY_BUCKETS is a 400 naming `period`.
 */
export function planActivity(window: TimeWindow, period: string | undefined): ActivityPlan {
  const name = period || DEFAULT_ACTIVITY_PERIOD;
  const periodMs = PERIOD_MS[name];
  if (periodMs === undefined) throw invalidArgument("period", `must be one of ${Object.keys(PERIOD_MS).join(", ")}, got ${quoteValue(period)}`);
  const count = Math.ceil((window.end.getTime() - window.start.getTime()) / periodMs);
  if (count > MAX_ACTIVITY_BUCKETS) {
    throw invalidArgument("period", `gives ${count} buckets between start_time and end_time, more than ${MAX_ACTIVITY_BUCKETS}: choose a longer period or a shorter window`);
  }
  const starts = Array.from({ length: count }, (_, i) => new Date(window.start.getTime() + i * periodMs));
  return { window, period: name, periodMs, starts };
}

interface Interval {
  key: string;
  from: number;
  to: number;
  vCPU: number;
}

const RUNNING_KEY = "";

/**
 * Computes the activity buckets from status histories. An invocation is in a status from the entry
 * that moved it there until the next entry (or until `now` while it has not ended); terminal
 * statuses are entered but never "held", since an ended invocation would otherwise count forever.
 */
export function activityBuckets(sources: readonly ActivitySource[], plan: ActivityPlan, now: Date): ActivityBucket[] {
  const { window, periodMs, starts } = plan;
  const ranges = starts.map((start) => ({ start: start.getTime(), end: Math.min(start.getTime() + periodMs, window.end.getTime()) }));
  const intervals = sources.flatMap((source) => intervalsOf(source, now.getTime()));
  const peaks = peaksPerBucket(intervals, ranges);
  const entered = enteredPerBucket(sources, window, periodMs, starts.length);
  const credits = creditsPerBucket(intervals, window, periodMs, starts.length);
  return starts.map((periodStart, i) => {
    const { [RUNNING_KEY]: running = 0, ...inStatus } = peaks[i]!;
    return { periodStart, peakInStatus: inStatus, peakConcurrency: running, enteredStatus: entered[i]!, computeCreditMillionths: credits[i]! };
  });
}

// Each held status becomes an interval under its name, and each running one also under RUNNING_KEY.
function intervalsOf(source: ActivitySource, now: number): Interval[] {
  const entries = [...source.statusHistory].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
  return entries.flatMap((entry, i) => {
    if (isTerminal(entry.status)) return [];
    const from = Date.parse(entry.timestamp);
    const next = entries[i + 1];
    const to = next ? Date.parse(next.timestamp) : Math.max(from, now);
    if (to <= from) return [];
    const held = { key: statusName(entry.status), from, to, vCPU: source.vCPU };
    return isRunning(entry.status) ? [held, { ...held, key: RUNNING_KEY }] : [held];
  });
}

interface Range {
  start: number;
  end: number;
}

/**
 * A sweep over interval starts (+1) and ends (-1) in time order, ends first at equal times
 * (intervals are half-open). A bucket's peak is the count at its start, raised by every start
 * inside it.
 */
function peaksPerBucket(intervals: readonly Interval[], ranges: readonly Range[]): Record<string, number>[] {
  const events = intervals.flatMap((v) => [{ at: v.from, key: v.key, delta: 1 }, { at: v.to, key: v.key, delta: -1 }]);
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  const current = new Map<string, number>();
  const apply = (e: { key: string; delta: number }) => current.set(e.key, (current.get(e.key) ?? 0) + e.delta);
  let next = 0;
  return ranges.map((range) => {
    while (next < events.length && events[next]!.at <= range.start) apply(events[next++]!);
    const peak: Record<string, number> = {};
    for (const [key, count] of current) if (count > 0) peak[key] = count;
    while (next < events.length && events[next]!.at < range.end) {
      const event = events[next++]!;
      apply(event);
      if (event.delta > 0) peak[event.key] = Math.max(peak[event.key] ?? 0, current.get(event.key)!);
    }
    return peak;
  });
}

function enteredPerBucket(sources: readonly ActivitySource[], window: TimeWindow, periodMs: number, count: number): Record<string, number>[] {
  const buckets = Array.from({ length: count }, () => ({}) as Record<string, number>);
  for (const entry of sources.flatMap((s) => s.statusHistory)) {
    const index = bucketIndex(Date.parse(entry.timestamp), window, periodMs);
    if (index === undefined) continue;
    const name = statusName(entry.status);
    buckets[index]![name] = (buckets[index]![name] ?? 0) + 1;
  }
  return buckets;
}

function bucketIndex(at: number, window: TimeWindow, periodMs: number): number | undefined {
  if (at < window.start.getTime() || at >= window.end.getTime()) return undefined;
  return Math.floor((at - window.start.getTime()) / periodMs);
}

// Summed exactly as milliseconds x vCPU units, then scaled once: 1 ms x 1024 units = 1000 millionths.
function creditsPerBucket(intervals: readonly Interval[], window: TimeWindow, periodMs: number, count: number): number[] {
  const sums = new Array<bigint>(count).fill(0n);
  const windowStart = window.start.getTime();
  for (const interval of intervals) {
    if (interval.key !== RUNNING_KEY) continue;
    const from = Math.max(interval.from, windowStart);
    const to = Math.min(interval.to, window.end.getTime());
    for (let index = Math.floor((from - windowStart) / periodMs); from < to && windowStart + index * periodMs < to; index++) {
      const bucketStart = windowStart + index * periodMs;
      const overlap = Math.min(to, bucketStart + periodMs) - Math.max(from, bucketStart);
      sums[index] = sums[index]! + BigInt(overlap) * BigInt(interval.vCPU);
    }
  }
  return sums.map((sum) => Number((sum * 125n + 64n) / 128n));
}
