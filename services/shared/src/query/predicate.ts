import { invalidArgument, quoteValue } from "../errors";
import { type Comparator, type ConditionValue } from "./condition";
import { rawSql, sql, type SqlFragment } from "./sql-fragment";

/** The comparators that remain once each negated one (NOT_EQUALS, IS_NOT_NULL, ...) is turned into `NOT <positive>`. */
export type PositiveComparator = Exclude<
  Comparator,
  "NOT_EQUALS" | "NOT_CONTAINS" | "NOT_LIKE" | "IS_NOT_NULL" | "NOT_EXISTS"
>;

/** One positive test on one field; `written` (the comparator as sent) and `path` name it in errors. */
export interface Predicate {
  readonly field: string;
  readonly comparator: PositiveComparator;
  readonly written: Comparator;
  readonly value?: ConditionValue;
  readonly path: string;
}

const OPERATORS: Partial<Record<PositiveComparator, string>> = {
  EQUALS: "=",
  GREATER_THAN: ">",
  GREATER_THAN_OR_EQUAL: ">=",
  LESS_THAN: "<",
  LESS_THAN_OR_EQUAL: "<=",
};

/**
 * Compiles `left <op> right` for EQUALS and the ordering comparators, or rejects any other
 * comparator as unsupported on `kind` fields. `right` runs only once the comparator is known good.
 */
export function compare(left: SqlFragment, p: Predicate, kind: string, right: () => SqlFragment): SqlFragment {
  const operator = OPERATORS[p.comparator];
  if (!operator) throw unsupported(p, kind);
  return sql`${left} ${rawSql(operator)} ${right()}`;
}

/** The LIKE pattern for CONTAINS (substring), BEGINS_WITH (prefix) or LIKE (as given). */
export function likePattern(p: Predicate): string {
  const value = stringValue(p);
  // Backslash is PostgreSQL's default LIKE escape, so escaping it and the wildcards makes them literal.
  const literal = value.replace(/[\\%_]/g, "\\$&");
  if (p.comparator === "CONTAINS") return `%${literal}%`;
  if (p.comparator === "BEGINS_WITH") return `${literal}%`;
  return value;
}

/** The predicate's value, which must be a string. */
export function stringValue(p: Predicate): string {
  const value = requireValue(p);
  if (typeof value !== "string") throw badValue(p, "a string");
  return value;
}

/** The predicate's value, which every comparator outside the null/exists family needs. */
export function requireValue(p: Predicate): ConditionValue {
  if (p.value === undefined) throw invalidArgument(`${p.path}.value`, `is required for comparator ${p.written}`);
  return p.value;
}

/** The error for a comparator that does not apply to a field of this kind. */
export function unsupported(p: Predicate, kind: string) {
  return invalidArgument(`${p.path}.comparator`, `${p.written} cannot be used on ${kind} field ${quoteValue(p.field)}`);
}

/** The error for a value of the wrong type or format for this comparator and field. */
export function badValue(p: Predicate, expected: string) {
  const got = typeof p.value === "string" ? quoteValue(p.value) : String(p.value);
  return invalidArgument(`${p.path}.value`, `${p.written} on field ${quoteValue(p.field)} needs ${expected}, got ${got}`);
}
