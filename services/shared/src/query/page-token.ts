import { createHash } from "node:crypto";
import { invalidArgument } from "../errors";
import type { QueryNode } from "./condition";
import { DEFAULT_SORT_BY, resolveSortDirection } from "./compile-order-by";
import { isStorableText } from "./keyset-order";

/** What a page token is bound to: the condition, the sort and any scope such as a parent id. */
export interface QueryShape {
  readonly condition?: QueryNode | null;
  readonly sortBy?: string | null;
  readonly sortDirection?: string | null;
  /** Anything else that selects the rows (e.g. the dataset id of `/datasets/{id}/files/query`). */
  readonly scope?: unknown;
}

// A first page may arrive as the literal string "None" (a Python client's str(None)).
const FIRST_PAGE = new Set(["", "None"]);
const TOKEN = /^[A-Za-z0-9_-]{1,400}$/;

/**
 * A short hash of the normalized query (defaults applied, keys sorted), stored in page tokens so
 * a token cannot be replayed against a different query, where its offset would mean nothing.
 */
export function queryFingerprint(query: QueryShape): string {
  const normalized = {
    condition: query.condition ?? null,
    sortBy: query.sortBy || DEFAULT_SORT_BY,
    sortDirection: resolveSortDirection(query.sortDirection),
    scope: query.scope ?? null,
  };
  return createHash("sha256").update(canonicalJson(normalized)).digest("base64url").slice(0, 16);
}

/** Makes the opaque (base64url) token for the page that starts at `offset`. */
export function encodePageToken(offset: number, fingerprint: string): string {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new Error(`invalid page offset ${offset}`);
  return Buffer.from(JSON.stringify({ o: offset, f: fingerprint })).toString("base64url");
}

/**
 * Reads a page token back to its offset; no token, "" or "None" mean the first page (offset 0).
 * A token that does not decode, or was made for another query, is a 400 naming `field`.
 */
export function decodePageToken(token: string | null | undefined, fingerprint: string, field = "after"): number {
  if (token === undefined || token === null || FIRST_PAGE.has(token)) return 0;
  const payload = TOKEN.test(token) ? parsePayload(token) : undefined;
  if (!payload) throw invalidArgument(field, "is not a valid page token");
  if (payload.f !== fingerprint) {
    throw invalidArgument(field, "page token belongs to a different query (the condition or sort changed)");
  }
  return payload.o;
}

/** Where a row sits in a sort order: its sort key as text (null when the key is null) and its id. */
export interface PageCursor {
  readonly key: string | null;
  readonly id: string;
}

/**
 * The longest cursor token read back. Cursor tokens carry a sort key (a path, a description, tags,
 * a metadata value), so they may be much longer than offsets: base64url of the key's JSON, which
 * for 100 tags of 200 escaped characters is about 189,000 characters. The same number is the
 * declared max_len of QuerySpecification.after (proto/hangar/common/v1/common.proto); the other
 * page-token fields take 10,000, as their keys are paths, names or numbers (8,300 at most).
 */
export const MAX_CURSOR_TOKEN_CHARS = 262_144;
const CURSOR_TOKEN = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_CURSOR_TOKEN_CHARS}}$`);

/** Makes the opaque (base64url) token of the page after the row at `cursor`. */
export function encodeCursorToken(cursor: PageCursor, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ k: cursor.key, i: cursor.id, f: fingerprint })).toString("base64url");
}

/**
 * Reads a cursor token back; no token, "" or "None" mean the first page (undefined). A token that
 * does not decode, or was made for another query, is a 400 naming `field`. The key is still text
 * here: the sort it belongs to checks that it reads as its type (`compileKeysetOrder`).
 */
export function decodeCursorToken(token: string | null | undefined, fingerprint: string, field: string): PageCursor | undefined {
  if (token === undefined || token === null || FIRST_PAGE.has(token)) return undefined;
  const payload = CURSOR_TOKEN.test(token) ? parseCursorPayload(token) : undefined;
  if (!payload) throw invalidArgument(field, "is not a valid page token");
  if (payload.f !== fingerprint) {
    throw invalidArgument(field, "page token belongs to a different query (the condition or sort changed)");
  }
  return { key: payload.k, id: payload.i };
}

function parseCursorPayload(token: string): { k: string | null; i: string; f: string } | undefined {
  const value = parseJson(Buffer.from(token, "base64url").toString("utf8"));
  if (typeof value !== "object" || value === null) return undefined;
  const { k, i, f } = value as Record<string, unknown>;
  const textual = (v: unknown): v is string => typeof v === "string" && isStorableText(v);
  return (k === null || textual(k)) && textual(i) && typeof f === "string" ? { k, i, f } : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parsePayload(token: string): { o: number; f: string } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (typeof value !== "object" || value === null) return undefined;
    const { o, f } = value as Record<string, unknown>;
    return Number.isSafeInteger(o) && (o as number) >= 0 && typeof f === "string" ? { o: o as number, f } : undefined;
  } catch {
    return undefined;
  }
}

// JSON with object keys sorted, so equal queries hash equally whatever their key order.
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  if (typeof value === "bigint") return value.toString();
  return JSON.stringify(value) ?? "null";
}
