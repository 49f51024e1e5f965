const MS_PER_DAY = 86_400_000;
const ZERO = 48;

/**
 * Reads a timestamptz column from a raw row. The ORM configures the driver to return timestamps as
 * PostgreSQL's text (`2026-11-21 08:07:42.102+00`), and JSON built in SQL writes them as
 * `2026-11-21T08:07:42.102+00:00`. Those two layouts (years 0001-9999, any fraction, an offset of
 * hours and minutes) are read by arithmetic: a page of 100 topics reads 1,400 of them, and making
 * the text ISO 8601 for Date's parser cost about four times as much (bench:topic-page-cpu). Anything
 * else (BC, an offset with seconds) goes to Date's parser, as ISO 8601.
 */
export function timestampFromRow(value: unknown): Date {
  if (value instanceof Date) return value;
  const text = String(value);
  return new Date(epochMillisOf(text) ?? Date.parse(text.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00")));
}

/** timestampFromRow of a nullable column: null (or a column the row lacks) stays null. */
export function nullableTimestampFromRow(value: unknown): Date | null {
  return value === null || value === undefined ? null : timestampFromRow(value);
}

/** The instant of PostgreSQL's text of a timestamptz in ms since the epoch (whole ms, as Date keeps), or undefined for another layout. */
function epochMillisOf(text: string): number | undefined {
  if (text.length < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  const separator = text.charCodeAt(10);
  if (separator !== 32 && separator !== 84) return undefined;
  const [year, month, day] = [digits(text, 0, 4), digits(text, 5, 2), digits(text, 8, 2)];
  const [hours, minutes, seconds] = [digits(text, 11, 2), digits(text, 14, 2), digits(text, 17, 2)];
  let at = 19;
  let millis = 0;
  if (text.charCodeAt(at) === 46) {
    const end = digitsEnd(text, ++at);
    millis = digits(text, at, Math.min(3, end - at)) * 10 ** Math.max(0, 3 - (end - at));
    at = end;
  }
  const offset = offsetMinutes(text, at);
  // PostgreSQL writes valid dates only; anything out of range is left to Date's parser as it was.
  if (!(year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hours <= 23 && minutes <= 59 && seconds <= 59 && millis >= 0) || offset === undefined) return undefined;
  return daysFromCivil(year, month, day) * MS_PER_DAY + ((hours * 60 + minutes - offset) * 60 + seconds) * 1000 + millis;
}

/** `+hh`, `+hh:mm` (or `-`) ending the text at `at`, in minutes east of UTC; undefined for anything else. */
function offsetMinutes(text: string, at: number): number | undefined {
  const sign = text.charCodeAt(at);
  if ((sign !== 43 && sign !== 45) || (text.length !== at + 3 && (text.length !== at + 6 || text.charCodeAt(at + 3) !== 58))) return undefined;
  const minutes = digits(text, at + 1, 2) * 60 + (text.length === at + 6 ? digits(text, at + 4, 2) : 0);
  return Number.isNaN(minutes) ? undefined : sign === 43 ? minutes : -minutes;
}

/** The decimal number of `count` digits at `at`; NaN when one is not a digit (or `count` is 0). */
function digits(text: string, at: number, count: number): number {
  if (count === 0) return NaN;
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - ZERO;
    if (!(digit >= 0 && digit <= 9)) return NaN;
    value = value * 10 + digit;
  }
  return value;
}

function digitsEnd(text: string, at: number): number {
  let end = at;
  while (end < text.length && text.charCodeAt(end) - ZERO >= 0 && text.charCodeAt(end) - ZERO <= 9) end++;
  return end;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
}
