import { invalidArgument } from "@hangar/shared";
import { InvocationStatus } from "./invocation-status";

/** A half-open time range [start, end). */
export interface TimeWindow {
  start: Date;
  end: Date;
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * Reads an ISO 8601 date or date-time; a missing zone is UTC, so results do not depend on the
 * server's zone. Anything else, including impossible dates like February 30, is a 400 naming `field`.
 */
export function parseIsoTime(value: string, field: string): Date {
  const match = ISO_TIME.exec(value.trim());
  const [, year = "", month = "", day = "", time = "00:00", zone = "Z"] = match ?? [];
  const date = new Date(`${year}-${month}-${day}T${time}${zoneOffset(zone)}`);
  if (!match || Number.isNaN(date.getTime()) || !isCalendarDate(Number(year), Number(month), Number(day))) {
    throw invalidArgument(field, `must be an ISO 8601 date-time, got '${value}'`);
  }
  return date;
}

// `+02`, `+0200` and `+02:00` all become `+02:00`, the one form Date reads everywhere.
function zoneOffset(zone: string): string {
  if (zone.toUpperCase() === "Z") return "Z";
  const digits = zone.slice(1).replace(":", "").padEnd(4, "0");
  return `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2)}`;
}

// Date rolls impossible days over (February 30 becomes March 2); checking the parts catches it.
function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Reads a required `start_time` / `end_time` pair of ISO 8601 strings; the end may not come before the start. */
export function isoWindow(start: string, end: string): TimeWindow {
  if (!start) throw invalidArgument("start_time", "is required (an ISO 8601 date-time)");
  if (!end) throw invalidArgument("end_time", "is required (an ISO 8601 date-time)");
  return checkedWindow(parseIsoTime(start, "start_time"), parseIsoTime(end, "end_time"));
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
