import { invalidArgument, quoteValue } from "../errors";
import { jsonPathSql } from "./compile-json-predicate";
import type { ColumnRef, FieldCatalog, JsonRef } from "./field-catalog";
import { isValidFieldPath } from "./field-path";
import { rawSql, sql, type SqlFragment } from "./sql-fragment";

/** The sort field when a request names none (every resource has `created`). */
export const DEFAULT_SORT_BY = "created";

/**
 * Compiles `sort_by` / `sort_direction` to an ORDER BY list (without the keywords) and always
 * appends `tieBreakerSql` (the primary key) in the same direction, so offset pages are stable.
 * Defaults: sort by `defaultSortBy`, DESC. JSON paths sort with missing values last.
 */
export function compileOrderBy(
  sortBy: string | null | undefined,
  direction: string | null | undefined,
  catalog: FieldCatalog,
  tieBreakerSql: string,
  defaultSortBy = DEFAULT_SORT_BY,
): SqlFragment {
  const dir = rawSql(resolveSortDirection(direction));
  const field = sortBy || defaultSortBy;
  const ref = sortableRef(catalog, field);
  const tieBreaker = rawSql(tieBreakerSql);
  // Columns keep PostgreSQL's default null placement, so an index on the column can serve the sort.
  if (ref.kind === "column") return sql`${rawSql(ref.sql)} ${dir}, ${tieBreaker} ${dir}`;
  return sql`${jsonPathSql(ref, "#>")} ${dir} NULLS LAST, ${tieBreaker} ${dir}`;
}

/**
 * The field a sort names, resolved through `catalog`; unknown fields and fields of related
 * resources (a dataset has many topics, so `topic.name` gives no single key) are a 400 naming
 * `requestField` (`sort_by`; value counts ask the same of their field).
 */
export function sortableRef(catalog: FieldCatalog, field: string, requestField = "sort_by"): ColumnRef | JsonRef {
  const ref = isValidFieldPath(field) ? catalog.resolve(field) : undefined;
  if (!ref) throw invalidArgument(requestField, `unknown field ${quoteValue(field)}`);
  if (ref.kind === "related") throw invalidArgument(requestField, `cannot use ${quoteValue(field)}, a field of a related resource`);
  return ref;
}

/** Normalizes `sort_direction`: ASC or DESC in any case, DESC when absent; anything else is a 400. */
export function resolveSortDirection(direction: string | null | undefined): "ASC" | "DESC" {
  if (!direction) return "DESC";
  const upper = direction.toUpperCase();
  if (upper === "ASC" || upper === "DESC") return upper;
  throw invalidArgument("sort_direction", `must be ASC or DESC, got ${quoteValue(direction)}`);
}
