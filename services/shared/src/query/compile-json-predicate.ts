import type { JsonRef } from "./field-catalog";
import { badValue, compare, likePattern, requireValue, type Predicate } from "./predicate";
import { joinSql, rawSql, sql, type SqlFragment } from "./sql-fragment";

/**
 * Compiles a positive predicate on a path inside a jsonb column. A value compares only with JSON
 * values of its own type (a number with JSON numbers, a string with JSON strings); CONTAINS is
 * membership in a JSON array and, for strings, also a substring of a JSON string (ignoring case, as on text columns). The SQL uses
 * `#>`, `#>>`, `@>` and `jsonb_typeof`, never the `?` operators, which would read as placeholders.
 */
export function compileJsonPredicate(ref: JsonRef, p: Predicate): SqlFragment {
  const json = jsonPathSql(ref, "#>");
  // #>> gives SQL NULL both for a missing path and for a JSON null.
  const text = jsonPathSql(ref, "#>>");
  switch (p.comparator) {
    case "IS_NULL":
      return sql`${text} IS NULL`;
    case "EXISTS":
      return sql`${json} IS NOT NULL`;
    case "CONTAINS":
      return contains(json, text, p);
    case "LIKE":
    case "BEGINS_WITH":
      return sql`jsonb_typeof(${json}) = 'string' AND ${text} LIKE ${likePattern(p)}`;
    default:
      return compareJson(json, text, p);
  }
}

/**
 * The value at a JSON path: `#>` gives jsonb (SQL NULL when the path is missing), `#>>` gives text.
 * Path keys are parameters; the SQL text comes only from the catalog.
 */
export function jsonPathSql(ref: JsonRef, operator: "#>" | "#>>"): SqlFragment {
  const keys = joinSql(ref.path.map((key) => sql`${key}`), ", ");
  return sql`(${rawSql(ref.sql)} ${rawSql(operator)} ARRAY[${keys}]::text[])`;
}

function contains(json: SqlFragment, text: SqlFragment, p: Predicate): SqlFragment {
  const value = requireValue(p);
  if (typeof value !== "string") return sql`${json} @> jsonb_build_array(${typedValue(value)})`;
  const substring = sql`jsonb_typeof(${json}) = 'string' AND ${text} ILIKE ${likePattern(p)}`;
  return sql`${json} @> jsonb_build_array(${typedValue(value)}) OR (${substring})`;
}

// The CASE keeps PostgreSQL from casting non-numbers (AND does not guarantee evaluation order).
function compareJson(json: SqlFragment, text: SqlFragment, p: Predicate): SqlFragment {
  const value = requireValue(p);
  if (typeof value === "number") {
    const number = sql`(CASE WHEN jsonb_typeof(${json}) = 'number' THEN ${json}::numeric END)`;
    return compare(number, p, "number", () => typedValue(value));
  }
  if (typeof value === "string") {
    return sql`jsonb_typeof(${json}) = 'string' AND ${compare(text, p, "JSON", () => sql`${value}`)}`;
  }
  if (p.comparator !== "EQUALS") throw badValue(p, "a number or a string");
  return sql`${json} = to_jsonb(${typedValue(value)})`;
}

function typedValue(value: string | number | boolean): SqlFragment {
  if (typeof value === "number") return sql`${value}::numeric`;
  if (typeof value === "boolean") return sql`${value}::boolean`;
  return sql`${value}::text`;
}
