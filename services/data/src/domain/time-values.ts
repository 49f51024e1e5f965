import type { JsonValue } from "@bufbuild/protobuf";
import { invalidArgument } from "@hangar/shared";

/** The largest time the platform stores: 2**63 - 1 ns. */
export const MAX_TIME_NS = 2n ** 63n - 1n;

const NS_PER_SECOND = 1_000_000_000n;
const numericText = /^(-?)(\d+)(?:\.(\d+))?$/;
const isoText = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A time as a request gives it: exact nanoseconds (a `bigint`, as the gateway reads a
 * hangar.common.v1.TimeValue integer), or JSON: a number, or text of seconds or ISO 8601.
 */
export type TimeInput = bigint | JsonValue;

/**
 * Reads a point in time given the ways the spec allows (the one reader of topic and session times:
 * register_file_topics, calibrate_file_timelines, session anchors, topic times): an integer of
 * nanoseconds since the epoch, a float or numeric string of seconds (read exactly from the text),
 * or ISO 8601 text with up to nine fractional digits. The result must lie in `[min, 2**63 - 1]`,
 * else a 400 naming `field`.
 */
export function nanosecondsOf(value: TimeInput, field: string, min: bigint): bigint {
  const ns = parseTime(value, field);
  if (ns < min || ns > MAX_TIME_NS) throw invalidArgument(field, `must lie between ${min} and 2**63 - 1 nanoseconds`);
  return ns;
}

/** An optional time (an anchor): absent or null is none, anything else as `nanosecondsOf` reads it. */
export function optionalNanoseconds(value: TimeInput | undefined, field: string, min: bigint): bigint | null {
  return value === undefined || value === null ? null : nanosecondsOf(value, field, min);
}

/** A time an update changes: absent stays (undefined), null clears, anything else as `nanosecondsOf` reads it. */
export function nanosecondsEdit(value: TimeInput | undefined, field: string, min: bigint): bigint | null | undefined {
  return value === undefined || value === null ? value : nanosecondsOf(value, field, min);
}

function parseTime(value: TimeInput, field: string): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw invalidArgument(field, "must be a finite number");
    return Number.isInteger(value) ? BigInt(value) : secondsText(String(value), field);
  }
  if (typeof value !== "string") throw invalidArgument(field, "expected an integer of nanoseconds, a number or numeric string of seconds, or ISO 8601 text");
  return numericText.test(value) ? secondsText(value, field) : isoInstant(value, field);
}

/** Seconds as decimal text (`1700000000.123456789`) to nanoseconds, exactly; finer digits are dropped. */
function secondsText(text: string, field: string): bigint {
  const match = numericText.exec(text.includes("e") || text.includes("E") ? Number(text).toFixed(9) : text);
  if (!match) throw invalidArgument(field, "expected a number of seconds");
  const [, sign, whole, fraction = ""] = match;
  const ns = BigInt(whole!) * NS_PER_SECOND + BigInt(fraction.slice(0, 9).padEnd(9, "0"));
  return sign === "-" ? -ns : ns;
}

function isoInstant(text: string, field: string): bigint {
  const match = isoText.exec(text);
  const ms = match ? Date.parse(`${match[1]}${match[3]}`) : NaN;
  if (!match || Number.isNaN(ms)) throw invalidArgument(field, "expected ISO 8601 text such as 2024-01-01T00:00:00.5Z");
  return BigInt(ms) * 1_000_000n + BigInt((match[2] ?? "").padEnd(9, "0"));
}
