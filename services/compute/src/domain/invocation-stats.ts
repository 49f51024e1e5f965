import { invalidArgument, parseIsoTimestamp } from "@hangar/shared";
import { InvocationStatus } from "./invocation-status";

/** A half-open time range [start, end). */
export interface TimeWindow {
  start: Date;
  end: Date;
}

/** Reads a required `start_time` / `end_time` pair of ISO 8601 strings; the end may not come before the start. */
export function isoWindow(start: string, end: string): TimeWindow {
  if (!start) throw invalidArgument("start_time", "is required (an ISO 8601 date-time)");
  if (!end) throw invalidArgument("end_time", "is required (an ISO 8601 date-time)");
  return checkedWindow(parseIsoTimestamp(start, "start_time"), parseIsoTimestamp(end, "end_time"));
}

/** The list form's default window: the last 30 days. */
export const DEFAULT_SUMMARY_WINDOW_SECONDS = 30 * 24 * 60 * 60;

/**
 * Reads the list form's optional epoch-second bounds: without an end, now; without a start, 30
 * days before the end.
 */
export function epochWindow(start: number | undefined, end: number | undefined, now = new Date()): TimeWindow {
  const endDate = end === undefined ? now : epochDate(end, "end_time");
  const startDate = start === undefined ? new Date(endDate.getTime() - DEFAULT_SUMMARY_WINDOW_SECONDS * 1000) : epochDate(start, "start_time");
  return checkedWindow(startDate, endDate);
}

function epochDate(seconds: number, field: string): Date {
  const date = new Date(seconds * 1000);
  if (!Number.isFinite(seconds) || Number.isNaN(date.getTime())) throw invalidArgument(field, `must be seconds since the Unix epoch, got ${seconds}`);
  return date;
}

function checkedWindow(start: Date, end: Date): TimeWindow {
  if (end < start) throw invalidArgument("end_time", `must not be before start_time (${start.toISOString()})`);
  return { start, end };
}

/** The list form's page size: 100 unless given, from 1 to 1000. */
export function summaryLimit(limit: bigint | undefined): number {
  if (limit === undefined) return 100;
  if (limit < 1n || limit > 1000n) throw invalidArgument("limit", `must be from 1 to 1000, got ${limit}`);
  return Number(limit);
}

/** Every status name mapped to its count; statuses without invocations count 0. */
export function countByStatusName(counts: ReadonlyMap<number, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(InvocationStatus).map(([name, value]) => [name, counts.get(value) ?? 0]));
}

/** Work waiting in the queue: queued invocations times the median run time (0 without a median). */
export function queuedWorkSeconds(queued: number, medianDurationSeconds: number | null): number {
  return medianDurationSeconds === null ? 0 : queued * medianDurationSeconds;
}
