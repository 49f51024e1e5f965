import { invalidArgument } from "../errors";

/** The comparators a Condition may use, as they appear on the wire (upper case). */
export const COMPARATORS = [
  "EQUALS",
  "NOT_EQUALS",
  "GREATER_THAN",
  "GREATER_THAN_OR_EQUAL",
  "LESS_THAN",
  "LESS_THAN_OR_EQUAL",
  "CONTAINS",
  "NOT_CONTAINS",
  "IS_NULL",
  "IS_NOT_NULL",
  "EXISTS",
  "NOT_EXISTS",
  "BEGINS_WITH",
  "LIKE",
  "NOT_LIKE",
] as const;

/** One of COMPARATORS. */
export type Comparator = (typeof COMPARATORS)[number];

/** How a ConditionGroup combines its conditions; NOT means "none of them match". */
export const GROUP_OPERATORS = ["AND", "OR", "NOT"] as const;

/** One of GROUP_OPERATORS. */
export type GroupOperator = (typeof GROUP_OPERATORS)[number];

/** A scalar a condition compares against; lists and objects are not allowed. */
export type ConditionValue = string | number | boolean;

/** A leaf test on one field; `value` is absent exactly for the null/exists family. */
export interface Condition {
  readonly field: string;
  readonly comparator: Comparator;
  readonly value?: ConditionValue;
}

/** A non-empty list of nodes joined by an operator; groups nest freely. */
export interface ConditionGroup {
  readonly operator: GroupOperator;
  readonly conditions: readonly QueryNode[];
}

/** The AST both the JSON form and the text query language produce. */
export type QueryNode = Condition | ConditionGroup;

/** Comparators that take no value: they test presence, not content. */
export const VALUELESS_COMPARATORS: ReadonlySet<Comparator> = new Set<Comparator>([
  "IS_NULL",
  "IS_NOT_NULL",
  "EXISTS",
  "NOT_EXISTS",
]);

/**
 * Bounds on a query's size, so one request cannot make the parser or the database do unbounded
 * work: groups nest at most `maxDepth` deep and a query holds at most `maxConditions` conditions.
 */
export const QUERY_LIMITS = { maxDepth: 32, maxConditions: 500 } as const;

/** Tells a group from a condition (they are told apart by shape). */
export function isConditionGroup(node: QueryNode): node is ConditionGroup {
  return "operator" in node;
}

/** True when `name` is one of COMPARATORS. */
export function isComparator(name: string): name is Comparator {
  return (COMPARATORS as readonly string[]).includes(name);
}

/** True when `name` is one of GROUP_OPERATORS. */
export function isGroupOperator(name: string): name is GroupOperator {
  return (GROUP_OPERATORS as readonly string[]).includes(name);
}

/**
 * Builds a condition from a field, comparator and optional value, applying the rules both query
 * forms share: the null/exists family ignores any value, `EQUALS null` means IS_NULL and
 * `NOT_EQUALS null` means IS_NOT_NULL, and every other comparator needs a value.
 */
export function buildCondition(
  field: string,
  comparator: Comparator,
  value: ConditionValue | null | undefined,
  valuePath: string,
): Condition {
  if (VALUELESS_COMPARATORS.has(comparator)) return { field, comparator };
  if (value === null && comparator === "EQUALS") return { field, comparator: "IS_NULL" };
  if (value === null && comparator === "NOT_EQUALS") return { field, comparator: "IS_NOT_NULL" };
  if (value === null || value === undefined) {
    throw invalidArgument(valuePath, `is required for comparator ${comparator}`);
  }
  return { field, comparator, value };
}
