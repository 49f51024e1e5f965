import { invalidArgument, quoteValue } from "@hangar/shared";
import { INT64_MAX, type SessionFileLink } from "./sessions";
import { optionalNanoseconds, type TimeInput } from "./time-values";

/** The most files and topics one request may declare (the client SDK's MAX_FILES_AND_TOPICS_PER_REQUEST). */
export const MAX_FILES_AND_TOPICS_PER_REQUEST = 500;

/**
 * One file a request declares for a session. The window is given either in the file's own time
 * (`min/maxFileTimestampNs`, the newer clients) or in wall-clock time (`rangeMin/MaxTimestampNs`,
 * API versions before 2026-10-05); both sides of a pair, or neither.
 */
export interface SessionFileInput {
  fileId: string;
  dataRange: readonly bigint[];
  /** As the time reader reads it (time-values); absent or null: none. */
  anchorNs?: TimeInput | undefined;
  /** How many topics the entry declares (topic registration is the topics' part: none are accepted yet). */
  topicCount: number;
  minFileTimestampNs?: bigint | undefined;
  maxFileTimestampNs?: bigint | undefined;
  rangeMinTimestampNs?: bigint | undefined;
  rangeMaxTimestampNs?: bigint | undefined;
}

const MAX_SAFE_POSITION = BigInt(Number.MAX_SAFE_INTEGER);

/** A declared file checked and turned into the link it makes (without session, time and actor). */
export type DeclaredFile = Pick<SessionFileLink, "fileId" | "dataRange" | "unixEpochOffsetNs" | "window">;

/**
 * Checks a list of file declarations (`field` names the list, e.g. `files` or `sessions[2].files`)
 * and returns the links they make; `sessionAnchor` anchors entries without their own. Errors name
 * the entry's field: a repeated file, a data range that is not `[start, end)` with 0 <= start <
 * end, an anchor at or before the epoch, a window given half or upside down or in both forms, or
 * one whose wall-clock time would pass 2^63 - 1 ns.
 */
export function checkFileDeclarations(files: readonly SessionFileInput[], field: string, sessionAnchor?: bigint): DeclaredFile[] {
  const seen = new Set<string>();
  return files.map((file, i) => {
    const at = `${field}[${i}]`;
    if (file.fileId.length === 0) throw invalidArgument(`${at}.file_id`, "is required");
    if (seen.has(file.fileId)) throw invalidArgument(`${at}.file_id`, `file ${quoteValue(file.fileId)} is declared more than once; declare each file once`);
    seen.add(file.fileId);
    if (file.topicCount > 0) {
      throw invalidArgument(`${at}.topics`, "declaring topics needs topic registration, which this server does not offer yet; declare the file without topics");
    }
    const offset = checkAnchor(file.anchorNs, `${at}.anchor_ns`) ?? sessionAnchor ?? null;
    return { fileId: file.fileId, dataRange: checkDataRange(file.dataRange, `${at}.data_range`), unixEpochOffsetNs: offset, window: windowOf(file, at, offset) };
  });
}

/** Reads an anchor with the platform's one time reader: a time after the epoch, to 2^63 - 1 ns (undefined: none). */
export function checkAnchor(anchorNs: TimeInput | undefined, field: string): bigint | undefined {
  return optionalNanoseconds(anchorNs, field, 1n) ?? undefined;
}

function checkDataRange(range: readonly bigint[], field: string): [bigint, bigint] | null {
  if (range.length === 0) return null;
  const [start, end] = range;
  if (range.length !== 2 || start === undefined || end === undefined) throw invalidArgument(field, "must be [start, end]");
  if (start < 0n) throw invalidArgument(field, "start must not be negative");
  if (end <= start) throw invalidArgument(field, "end must be above start");
  // Records show the slice as a JSON list of numbers, exact up to 2^53.
  if (end > MAX_SAFE_POSITION) throw invalidArgument(field, "positions above 2^53 are not supported");
  return [start, end];
}

/** The window in file time, from whichever form the entry gives, checked against the int64 bounds of its wall-clock time. */
function windowOf(file: SessionFileInput, at: string, offset: bigint | null): [bigint, bigint] | null {
  const fileTime = pair(file.minFileTimestampNs, file.maxFileTimestampNs, `${at}.min_file_timestamp_ns`, `${at}.max_file_timestamp_ns`);
  const wallClock = pair(file.rangeMinTimestampNs, file.rangeMaxTimestampNs, `${at}.range_min_timestamp_ns`, `${at}.range_max_timestamp_ns`);
  if (fileTime && wallClock) throw invalidArgument(`${at}.range_min_timestamp_ns`, "give the window once: min/max_file_timestamp_ns or range_min/max_timestamp_ns");
  const shift = offset ?? 0n;
  const window = fileTime ?? (wallClock ? ([wallClock[0] - shift, wallClock[1] - shift] as [bigint, bigint]) : null);
  if (window && window[1] + shift > INT64_MAX) throw invalidArgument(`${at}.max_file_timestamp_ns`, "with the anchor, passes 2^63 - 1 ns");
  return window;
}

function pair(min: bigint | undefined, max: bigint | undefined, minField: string, maxField: string): [bigint, bigint] | null {
  if (min === undefined && max === undefined) return null;
  if (min === undefined) throw invalidArgument(minField, `is required with ${maxField.slice(maxField.lastIndexOf(".") + 1)}`);
  if (max === undefined) throw invalidArgument(maxField, `is required with ${minField.slice(minField.lastIndexOf(".") + 1)}`);
  if (min > max) throw invalidArgument(minField, `must not be above ${maxField.slice(maxField.lastIndexOf(".") + 1)}`);
  return [min, max];
}
