import type { ColumnRef } from "./field-catalog";
import { badValue, compare, likePattern, requireValue, stringValue, unsupported, type Predicate } from "./predicate";
import { rawSql, sql, type SqlFragment } from "./sql-fragment";
import { isDecimalString, normalizeIsoTimestamp } from "./value-formats";

/**
 * Compiles a positive predicate on a plain column. The column's type decides what applies: text
 * compares and pattern-matches strings (CONTAINS ignoring case), text[] tests membership, number/timestamp/boolean compare
 * typed values; anything else is a 400 naming the comparator or the value.
 */
export function compileColumnPredicate(ref: ColumnRef, p: Predicate): SqlFragment {
  const column = rawSql(ref.sql);
  if (p.comparator === "IS_NULL") return sql`${column} IS NULL`;
  if (p.comparator === "EXISTS") return rawSql("TRUE");
  switch (ref.type) {
    case "text":
      return textColumn(column, p);
    case "text[]":
      return listColumn(column, p);
    case "number":
      return compare(column, p, "number", () => numberSql(numericValue(p)));
    case "timestamp":
      return compare(column, p, "timestamp", () => sql`${timestampValue(p)}::timestamptz`);
    case "boolean":
      return booleanColumn(column, p);
  }
}

// CONTAINS is what a user types to find a word, so it ignores case (ILIKE, which trigram indexes
// serve); LIKE and BEGINS_WITH match as written.
function textColumn(column: SqlFragment, p: Predicate): SqlFragment {
  if (p.comparator === "CONTAINS") return sql`${column} ILIKE ${likePattern(p)}`;
  if (p.comparator === "BEGINS_WITH" || p.comparator === "LIKE") {
    return sql`${column} LIKE ${likePattern(p)}`;
  }
  return compare(column, p, "text", () => sql`${stringValue(p)}`);
}

// EQUALS on a list reads as membership too (`tags = 'x'`), the way users tend to mean it.
function listColumn(column: SqlFragment, p: Predicate): SqlFragment {
  if (p.comparator !== "CONTAINS" && p.comparator !== "EQUALS") throw unsupported(p, "list");
  return sql`${column} @> ARRAY[${stringValue(p)}]::text[]`;
}

function booleanColumn(column: SqlFragment, p: Predicate): SqlFragment {
  if (p.comparator !== "EQUALS") throw unsupported(p, "boolean");
  const value = requireValue(p);
  if (typeof value !== "boolean") throw badValue(p, "true or false");
  return sql`${column} = ${value}::boolean`;
}

const INTEGER = /^-?\d{1,19}$/;
const BIGINT_MIN = -(2n ** 63n);
const BIGINT_MAX = 2n ** 63n - 1n;

/**
 * A number as SQL: an integer in bigint's range as bigint, anything else as numeric. Integer
 * columns compare with bigint through their index (same operator family); against numeric
 * PostgreSQL casts the column and can use no index (a status filter then read every invocation of
 * the org; a keyset page after a nanosecond time, 19 digits, read every earlier value).
 */
export function numberSql(value: number | string): SqlFragment {
  return isBigint(value) ? sql`${value}::bigint` : sql`${value}::numeric`;
}

function isBigint(value: number | string): boolean {
  if (typeof value === "number") return Number.isSafeInteger(value);
  if (!INTEGER.test(value)) return false;
  const n = BigInt(value);
  return n >= BIGINT_MIN && n <= BIGINT_MAX;
}

// Decimal strings are passed on as text so PostgreSQL's numeric keeps every digit.
function numericValue(p: Predicate): number | string {
  const value = requireValue(p);
  if (typeof value === "number") return value;
  if (typeof value === "string" && isDecimalString(value.trim())) return value.trim();
  throw badValue(p, "a number");
}

function timestampValue(p: Predicate): string {
  const value = requireValue(p);
  const timestamp = typeof value === "string" ? normalizeIsoTimestamp(value) : undefined;
  if (timestamp === undefined) throw badValue(p, "an ISO 8601 date or date-time");
  return timestamp;
}
