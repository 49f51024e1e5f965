import { invalidArgument } from "../errors";
import { textArrayLiteral } from "../db/array-literal";
import { numberSql } from "./compile-column-predicate";
import { compileOrderBy, resolveSortDirection, sortableRef } from "./compile-order-by";
import { jsonPathSql } from "./compile-json-predicate";
import type { ColumnRef, FieldCatalog, JsonRef } from "./field-catalog";
import type { PageCursor } from "./page-token";
import { joinSql, rawSql, sql, type SqlFragment } from "./sql-fragment";

/** A sort order compiled for keyset paging: each page starts after the last row of the one before. */
export interface KeysetOrder {
  /** The ORDER BY list (without the keywords), the tie-breaker last. */
  readonly orderBy: SqlFragment;
  /** Select-list columns `page_key` and `page_id`: each row's cursor, read back with `cursorOfRow`. */
  readonly cursorColumns: SqlFragment;
  /**
   * The rows after `cursor` in this order (TRUE without one). A key that does not read as the sort
   * field's type is a 400 naming `field`, so a forged token never reaches PostgreSQL as a bad cast.
   */
  after(cursor: PageCursor | undefined, field: string): SqlFragment;
  /**
   * The same rows as `after`, as disjoint ranges in page order, each one range of an index on
   * (key, id): one, or two where the cursor's side of the order reaches the nulls (a nullable key
   * sorting nulls last: the later keys, then the null keys). `after` is their OR, which PostgreSQL
   * cannot read as one range; a store may read the ranges apart (keysetRangesSql).
   */
  afterRanges(cursor: PageCursor | undefined, field: string): SqlFragment[];
}

/** `after` of a first page (no cursor): every row. */
const FIRST_PAGE = "TRUE";

/** Whether `after` (a KeysetOrder's) starts at the first row: the search's first page. */
export function isFirstPage(after: SqlFragment): boolean {
  return after.sql === FIRST_PAGE;
}

/** The cursor of a row selected with `KeysetOrder.cursorColumns`. */
export function cursorOfRow(row: Record<string, unknown>): PageCursor {
  const key = row["page_key"];
  return { key: key === null || key === undefined ? null : String(key), id: String(row["page_id"]) };
}

/**
 * Compiles `sort_by` / `sort_direction` (see compileOrderBy: default `defaultSortBy` DESC, the
 * primary key `tieBreakerSql` breaking ties) for keyset paging. The predicate follows the order's
 * null placement: columns keep PostgreSQL's (NULLS LAST ascending, FIRST descending), JSON paths
 * sort missing values last. The (key, id) row comparison lets an index on both serve a deep page
 * as cheaply as the first; a column the catalog declares NOT NULL needs no null arm beside it.
 */
export function compileKeysetOrder(
  sortBy: string | null | undefined,
  direction: string | null | undefined,
  catalog: FieldCatalog,
  tieBreakerSql: string,
  defaultSortBy?: string,
): KeysetOrder {
  const orderBy = compileOrderBy(sortBy, direction, catalog, tieBreakerSql, defaultSortBy);
  const ref = sortableRef(catalog, sortBy || defaultSortBy || "created");
  const codec = keyCodec(ref);
  const tie = rawSql(tieBreakerSql);
  const op = rawSql(resolveSortDirection(direction) === "ASC" ? ">" : "<");
  const nullsLast = ref.kind === "json" || resolveSortDirection(direction) === "ASC";
  const nullable = !(ref.kind === "column" && ref.notNull);
  function afterRanges(cursor: PageCursor | undefined, tokenField: string): SqlFragment[] {
    if (!cursor) return [rawSql(FIRST_PAGE)];
    const expr = codec.expr;
    if (cursor.key === null) {
      const nullRows = sql`(${expr} is null and ${tie} ${op} ${cursor.id})`;
      return nullsLast ? [nullRows] : [nullRows, sql`${expr} is not null`];
    }
    const later = sql`(${expr}, ${tie}) ${op} (${codec.value(cursor.key, tokenField)}, ${cursor.id})`;
    return nullsLast && nullable ? [later, sql`${expr} is null`] : [later];
  }
  return {
    orderBy,
    cursorColumns: sql`${codec.text} as page_key, ${tie} as page_id`,
    afterRanges,
    after(cursor, tokenField) {
      const [first, ...rest] = afterRanges(cursor, tokenField);
      return rest.length === 0 ? first! : sql`(${joinSql([first!, ...rest], " or ")})`;
    },
  };
}

/** How one sort field's key travels: its SQL expression, its text form, and that text read back. */
interface KeyCodec {
  expr: SqlFragment;
  text: SqlFragment;
  value(key: string, field: string): SqlFragment;
}

const NUMBER = /^(-?\d{1,1000}(\.\d{1,1000})?([eE][-+]?\d{1,3})?|NaN|-?Infinity)$/;
// Timestamps travel as microseconds since the epoch: exact (JS dates keep only milliseconds) and
// easy to check, where PostgreSQL's text form has many spellings.
const MICROS = /^-?\d{1,16}$/;

function keyCodec(ref: ColumnRef | JsonRef): KeyCodec {
  if (ref.kind === "json") {
    const expr = jsonPathSql(ref, "#>");
    return { expr, text: sql`${expr}::text`, value: (key, field) => sql`${checked(key, isJsonbText(key), field)}::jsonb` };
  }
  const expr = rawSql(ref.sql);
  switch (ref.type) {
    case "text":
      return { expr, text: expr, value: (key) => sql`${key}::text` };
    case "number":
      return { expr, text: sql`${expr}::text`, value: (key, field) => numberSql(checked(key, NUMBER.test(key), field)) };
    case "boolean":
      return { expr, text: sql`${expr}::text`, value: (key, field) => sql`${checked(key, key === "true" || key === "false", field)}::boolean` };
    case "timestamp":
      return {
        expr,
        text: sql`(extract(epoch from ${expr}) * 1000000)::bigint::text`,
        value: (key, field) => sql`(timestamptz 'epoch' + ${checked(key, MICROS.test(key), field)}::bigint * interval '1 microsecond')`,
      };
    case "text[]":
      return { expr, text: sql`array_to_json(${expr})::text`, value: (key, field) => sql`${textArrayOf(key, field)}::text[]` };
  }
}

function checked(key: string, valid: boolean, field: string): string {
  if (!valid) throw invalidArgument(field, "is not a valid page token");
  return key;
}

/**
 * Whether PostgreSQL's jsonb input takes `text` without an error: JSON whose strings have no NUL
 * or lone surrogate, numbers that fit a double and modest nesting (PostgreSQL's own output has those).
 */
function isJsonbText(text: string): boolean {
  const value = parseJson(text);
  return value !== undefined && isStorableJson(value, 0);
}

function isStorableJson(value: unknown, depth: number): boolean {
  if (typeof value === "string") return isStorableText(value);
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || value === null) return true;
  if (depth > MAX_KEY_DEPTH) return false;
  const entries = Array.isArray(value) ? value.map((v) => ["", v] as const) : Object.entries(value);
  return entries.every(([k, v]) => isStorableText(k) && isStorableJson(v, depth + 1));
}

const MAX_KEY_DEPTH = 64;

/** Whether PostgreSQL can hold `text`: no NUL and no lone surrogate (not encodable as UTF-8). */
export function isStorableText(text: string): boolean {
  return !text.includes("\0") && !/\p{Surrogate}/u.test(text);
}

function textArrayOf(key: string, field: string): string {
  const value = parseJson(key);
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && isStorableText(v))) checked(key, false, field);
  return textArrayLiteral(value as string[]);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
