import { decodePageToken, encodePageToken, queryFingerprint } from "@hangar/shared";

/** How many log lines one get_logs page or one stream_logs batch carries at most. */
export const LOG_PAGE_SIZE = 1000;

// Bound to the invocation, so a cursor of one invocation's logs is refused on another's.
function fingerprintOf(invocationId: string): string {
  return queryFingerprint({ scope: { logs: invocationId } });
}

/**
 * The opaque cursor after log line `seq` of an invocation: get_logs hands it out as `next_token`
 * and stream_logs as `last_read`. Lines are ordered by their `seq`, so a cursor stays valid while
 * more lines are written.
 */
export function encodeLogCursor(invocationId: string, seq: number): string {
  return encodePageToken(seq, fingerprintOf(invocationId));
}

/**
 * The `seq` a cursor points after: 0 (from the first line) for none, "" or the literal "None"
 * (a Python client's first call). A cursor that does not decode is a 400 naming `field`.
 */
export function decodeLogCursor(invocationId: string, cursor: string | undefined, field: string): number {
  return decodePageToken(cursor, fingerprintOf(invocationId), field);
}
