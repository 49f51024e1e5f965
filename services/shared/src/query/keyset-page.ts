import { encodePageToken, decodePageToken, queryFingerprint } from "./page-token";
import { resolveLimit } from "./resolve-limit";

/** One page of a newest-first listing keyed on an increasing integer (an identity column). */
export interface KeysetPage {
  limit: number;
  /** Serve rows whose key is below this one; undefined from the top. */
  before: number | undefined;
  /** The token of the page after one whose last row has `lastKey`; undefined when none follows. */
  nextToken(lastKey: number | undefined, hasMore: boolean): string | undefined;
}

/**
 * Reads `page_size` (default and maximum 1000) and `page_token` of a newest-first GET listing.
 * Tokens carry the last key served, so rows added meanwhile never shift a page; `scope` (the
 * org or parent the listing is of) binds a token to its listing, and a foreign token is a 400.
 */
export function planKeysetPage(pageSize: bigint | undefined, pageToken: string | undefined, scope: string): KeysetPage {
  const fingerprint = queryFingerprint({ scope });
  const cursor = decodePageToken(pageToken, fingerprint, "page_token");
  return {
    limit: resolveLimit(pageSize, "page_size"),
    before: cursor === 0 ? undefined : cursor,
    nextToken: (lastKey, hasMore) => (hasMore && lastKey !== undefined ? encodePageToken(lastKey, fingerprint) : undefined),
  };
}
