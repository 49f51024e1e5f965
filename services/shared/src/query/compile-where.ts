import { invalidArgument, quoteValue } from "../errors";
import { isConditionGroup, type Comparator, type Condition, type ConditionGroup, type QueryNode } from "./condition";
import { compileColumnPredicate } from "./compile-column-predicate";
import { compileJsonPredicate } from "./compile-json-predicate";
import type { FieldCatalog, FieldRef, Relation } from "./field-catalog";
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
 * (`condition.conditions[1].field: unknown field 'foo'`), mirroring the JSON form. A field of a
 * related resource becomes a semi-join (see `Relation`); a negated comparator on one means "no
 * related row matches the positive test" (`topic.name != 'x'`: no topic named x).
 */
export function compileWhere(node: QueryNode | undefined, catalog: FieldCatalog, fieldName = "condition"): SqlFragment {
  return node ? compileNode(node, catalog, fieldName) : rawSql("TRUE");
}

function compileNode(node: QueryNode, catalog: FieldCatalog, path: string): SqlFragment {
  return isConditionGroup(node) ? compileGroup(node, catalog, path) : compileCondition(node, catalog, path);
}

// NOT is "none match"; IS NOT TRUE also turns an unknown (NULL) result into a match.
function compileGroup(group: ConditionGroup, catalog: FieldCatalog, path: string): SqlFragment {
  if (group.conditions.length === 0) throw invalidArgument(`${path}.conditions`, "must not be empty");
  if (group.operator === "AND") return sql`(${joinSql(compileAndMembers(group, catalog, path), " AND ")})`;
  const parts = group.conditions.map((c, i) => compileNode(c, catalog, `${path}.conditions[${i}]`));
  return group.operator === "OR" ? sql`(${joinSql(parts, " OR ")})` : sql`((${joinSql(parts, " OR ")}) IS NOT TRUE)`;
}

/**
 * The members of an AND group, where positive conditions on related resources that share a
 * relation are tested together, against one related row, in the place of the first of them.
 */
function compileAndMembers(group: ConditionGroup, catalog: FieldCatalog, path: string): SqlFragment[] {
  const merged = new Map<string, { relation: Relation; tests: SqlFragment[]; slot: number }>();
  const parts: (SqlFragment | undefined)[] = [];
  group.conditions.forEach((node, i) => {
    const at = `${path}.conditions[${i}]`;
    const related = isConditionGroup(node) ? undefined : positiveRelated(node, catalog, at);
    if (!related) return void parts.push(compileNode(node, catalog, at));
    const entry = merged.get(related.relation.key) ?? { relation: related.relation, tests: [], slot: parts.push(undefined) - 1 };
    entry.tests.push(related.test);
    merged.set(related.relation.key, entry);
  });
  for (const { relation, tests, slot } of merged.values()) parts[slot] = sql`(${relation.exists(joinSql(tests, " AND "))})`;
  return parts.filter((p): p is SqlFragment => p !== undefined);
}

function positiveRelated(condition: Condition, catalog: FieldCatalog, path: string): { relation: Relation; test: SqlFragment } | undefined {
  const ref = resolveField(condition, catalog, path);
  if (ref.kind !== "related" || NEGATED[condition.comparator]) return undefined;
  return { relation: ref.relation, test: predicateOn(ref.ref, condition, condition.comparator as PositiveComparator, path) };
}

function compileCondition(condition: Condition, catalog: FieldCatalog, path: string): SqlFragment {
  const ref = resolveField(condition, catalog, path);
  const negated = NEGATED[condition.comparator];
  const comparator = negated ?? (condition.comparator as PositiveComparator);
  const test =
    ref.kind === "related" ? ref.relation.exists(predicateOn(ref.ref, condition, comparator, path)) : predicateOn(ref, condition, comparator, path);
  return negated ? sql`((${test}) IS NOT TRUE)` : sql`(${test})`;
}

function resolveField(condition: Condition, catalog: FieldCatalog, path: string): FieldRef {
  const ref = catalog.resolve(condition.field);
  if (!ref) throw invalidArgument(`${path}.field`, `unknown field ${quoteValue(condition.field)}`);
  return ref;
}

function predicateOn(ref: Exclude<FieldRef, { kind: "related" }>, condition: Condition, comparator: PositiveComparator, path: string): SqlFragment {
  const predicate = { field: condition.field, comparator, written: condition.comparator, value: condition.value, path };
  return ref.kind === "column" ? compileColumnPredicate(ref, predicate) : compileJsonPredicate(ref, predicate);
}
