import { invalidArgument, quoteValue } from "../errors";

const DATE = String.raw`(\d{4})-(\d{2})-(\d{2})`;
const TIME = String.raw`([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?`;
const ZONE = String.raw`(Z|[+-](?:0\d|1[0-5])(?::?[0-5]\d)?)`;
const ISO_TIMESTAMP = new RegExp(`^${DATE}(?:[T ]${TIME}${ZONE}?)?$`, "i");
const DECIMAL = /^[+-]?(?:\d{1,100}(?:\.\d{0,100})?|\.\d{1,100})(?:[eE][+-]?\d{1,3})?$/;

/**
 * Checks an ISO 8601 date (`2025-04-05`) or date-time (`2025-04-05T10:00:00.5+02:00`) and returns
 * it with an explicit zone, reading a missing zone as UTC so results do not depend on the server's
 * time zone. Returns undefined for anything else, including impossible dates like February 30.
 */
export function normalizeIsoTimestamp(value: string): string | undefined {
  const match = ISO_TIMESTAMP.exec(value.trim());
  if (!match) return undefined;
  const [, year, month, day, hour, , , zone] = match;
  if (!isCalendarDate(Number(year), Number(month), Number(day))) return undefined;
  if (hour === undefined) return `${year}-${month}-${day}T00:00:00Z`;
  return zone === undefined ? `${value.trim()}Z` : value.trim();
}

/**
 * Reads an ISO 8601 date or date-time (normalizeIsoTimestamp's forms) into a Date; anything else is
 * a 400 naming `field`. Zone offsets are rewritten to `+hh:mm`, the one offset form Date reads.
 */
export function parseIsoTimestamp(value: string, field: string): Date {
  const normalized = normalizeIsoTimestamp(value);
  const date = normalized === undefined ? undefined : new Date(normalized.replace(/([+-]\d{2}):?(\d{2})?$/, (_, h: string, m?: string) => `${h}:${m ?? "00"}`));
  if (!date || Number.isNaN(date.getTime())) throw invalidArgument(field, `must be an ISO 8601 date-time, got ${quoteValue(value)}`);
  return date;
}

/** True when `value` is a decimal number written as a string (`"12.50"`, `"-3"`, `"1e6"`). */
export function isDecimalString(value: string): boolean {
  return DECIMAL.test(value);
}

// Year 0 does not exist in PostgreSQL's calendar; Date rolls impossible days over, which the comparison catches.
function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return year >= 1 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
