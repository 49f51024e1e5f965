import { formatIsoTimestamp } from "@hangar/shared";

const dateTime =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?))?$/;

/** Seconds and nanoseconds since the Unix epoch, as in google.protobuf.Timestamp. */
export interface EpochTime {
  readonly seconds: bigint;
  readonly nanos: number;
}

/**
 * Parses an ISO 8601 / RFC 3339 date-time with a timezone (`2026-11-21T07:16:15.123456+02:00`,
 * `...Z`), or a bare date (`2026-11-21`, midnight UTC). Returns undefined for anything else,
 * including a date-time without a timezone, whose instant would be a guess.
 */
export function parseTimestamp(text: string): EpochTime | undefined {
  const m = dateTime.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = "", zulu, sign, oh = "0", om = "0"] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (m[4] !== undefined && zulu === undefined && sign === undefined) return undefined;
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || Number(oh) > 23 || Number(om) > 59) return undefined;
  const offsetSeconds = sign === undefined ? 0 : (sign === "-" ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
  const midnightMs = new Date(0).setUTCFullYear(year, month - 1, day);
  const seconds = midnightMs / 1000 + hour * 3600 + minute * 60 + second - offsetSeconds;
  return { seconds: BigInt(seconds), nanos: Number(fraction.slice(0, 9).padEnd(9, "0")) };
}

/** Formats an instant as ISO 8601 in UTC with milliseconds, for example `2026-11-21T07:16:15.123Z`. */
export function formatTimestamp(seconds: bigint, nanos: number): string {
  return formatIsoTimestamp(Number(seconds) * 1000 + Math.floor(nanos / 1e6));
}

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}
