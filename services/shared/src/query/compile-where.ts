import { invalidArgument, quoteValue } from "../errors";
import { isConditionGroup, type Comparator, type Condition, type ConditionGroup, type QueryNode } from "./condition";
import { compileColumnPredicate } from "./compile-column-predicate";
import { compileJsonPredicate } from "./compile-json-predicate";
import type { FieldCatalog } from "./field-catalog";
import type { PositiveComparator } from "./predicate";
import { joinSql, rawSql, sql, type SqlFragment } from "./sql-fragment";

// Each negated comparator is exactly "the positive one is not true", so rows where the field is
// missing or null count as not equal / not containing / not like.
const NEGATED: Partial<Record<Comparator, PositiveComparator>> = {
  NOT_EQUALS: "EQUALS",
  NOT_CONTAINS: "CONTAINS",
  NOT_LIKE: "LIKE",
  IS_NOT_NULL: "IS_NULL",
  NOT_EXISTS: "EXISTS",
};

/**
 * Compiles a condition AST to a PostgreSQL boolean expression with `?` placeholders, resolving
 * fields through `catalog`; no node gives `TRUE`. Errors name the node's path under `fieldName`
 * (`condition.conditions[1].field: unknown field 'foo'`), mirroring the JSON form.
 */
export function compileWhere(node: QueryNode | undefined, catalog: FieldCatalog, fieldName = "condition"): SqlFragment {
  return node ? compileNode(node, catalog, fieldName) : rawSql("TRUE");
}

function compileNode(node: QueryNode, catalog: FieldCatalog, path: string): SqlFragment {
  return isConditionGroup(node) ? compileGroup(node, catalog, path) : compileCondition(node, catalog, path);
}

// NOT is "none match"; IS NOT TRUE also turns an unknown (NULL) result into a match.
function compileGroup(group: ConditionGroup, catalog: FieldCatalog, path: string): SqlFragment {
  const parts = group.conditions.map((c, i) => compileNode(c, catalog, `${path}.conditions[${i}]`));
  if (parts.length === 0) throw invalidArgument(`${path}.conditions`, "must not be empty");
  switch (group.operator) {
    case "AND":
      return sql`(${joinSql(parts, " AND ")})`;
    case "OR":
      return sql`(${joinSql(parts, " OR ")})`;
    case "NOT":
      return sql`((${joinSql(parts, " OR ")}) IS NOT TRUE)`;
  }
}

function compileCondition(condition: Condition, catalog: FieldCatalog, path: string): SqlFragment {
  const ref = catalog.resolve(condition.field);
  if (!ref) throw invalidArgument(`${path}.field`, `unknown field ${quoteValue(condition.field)}`);
  const negated = NEGATED[condition.comparator];
  const comparator = negated ?? (condition.comparator as PositiveComparator);
  const predicate = { field: condition.field, comparator, written: condition.comparator, value: condition.value, path };
  const test = ref.kind === "column" ? compileColumnPredicate(ref, predicate) : compileJsonPredicate(ref, predicate);
  return negated ? sql`((${test}) IS NOT TRUE)` : sql`(${test})`;
}
