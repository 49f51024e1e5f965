import { encodePageToken, decodePageToken, queryFingerprint } from "./page-token";
import { DEFAULT_LIMIT, resolveLimit } from "./resolve-limit";

/** One page of a newest-first listing keyed on an increasing integer (an identity column). */
export interface KeysetPage {
  limit: number;
  /** Serve rows whose key is below this one; undefined from the top. */
  before: number | undefined;
  /** The token of the page after one whose last row has `lastKey`; undefined when none follows. */
  nextToken(lastKey: number | undefined, hasMore: boolean): string | undefined;
}

/**
 * Reads the page size (`page_size` unless the listing names it otherwise; default 1000 unless
 * given, at most 1000) and `page_token` of a newest-first GET listing. Tokens carry the last key
 * served, so rows added meanwhile never shift a page; `scope` (the org or parent the listing is of)
 * binds a token to its listing, and a foreign token is a 400.
 */
export function planKeysetPage(
  pageSize: bigint | undefined,
  pageToken: string | undefined,
  scope: string,
  options: { sizeField?: string; defaultSize?: number } = {},
): KeysetPage {
  const fingerprint = queryFingerprint({ scope });
  const cursor = decodePageToken(pageToken, fingerprint, "page_token");
  return {
    limit: pageSize === undefined ? (options.defaultSize ?? DEFAULT_LIMIT) : resolveLimit(pageSize, options.sizeField ?? "page_size"),
    before: cursor === 0 ? undefined : cursor,
    nextToken: (lastKey, hasMore) => (hasMore && lastKey !== undefined ? encodePageToken(lastKey, fingerprint) : undefined),
  };
}
