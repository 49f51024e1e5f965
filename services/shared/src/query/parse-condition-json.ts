import { invalidArgument, quoteValue } from "../errors";
import {
  buildCondition,
  isComparator,
  isGroupOperator,
  QUERY_LIMITS,
  type Condition,
  type ConditionGroup,
  type ConditionValue,
  type QueryNode,
} from "./condition";
import { isValidFieldPath } from "./field-path";

interface ParseState {
  conditions: number;
}

/**
 * Validates an untrusted JSON value (the `condition` of a QuerySpecification) and returns its AST;
 * null or undefined mean "no condition". Every problem throws invalidArgument naming the exact
 * path, e.g. `condition.conditions[1].comparator: unknown comparator 'EQ'`.
 */
export function parseConditionJson(json: unknown, fieldName = "condition"): QueryNode | undefined {
  if (json === null || json === undefined) return undefined;
  return parseNode(json, fieldName, 1, { conditions: 0 });
}

function parseNode(json: unknown, path: string, depth: number, state: ParseState): QueryNode {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw invalidArgument(path, "expected a condition or condition group object");
  }
  const record = json as Record<string, unknown>;
  const isGroup = "operator" in record || "conditions" in record;
  const isCondition = "field" in record || "comparator" in record;
  if (isGroup && isCondition) {
    throw invalidArgument(path, "has both group keys (operator, conditions) and condition keys (field, comparator)");
  }
  if (isGroup) return parseGroup(record, path, depth, state);
  if (isCondition) return parseCondition(record, path, state);
  throw invalidArgument(path, "expected {field, comparator, value} or {operator, conditions}");
}

function parseGroup(record: Record<string, unknown>, path: string, depth: number, state: ParseState): ConditionGroup {
  if (depth > QUERY_LIMITS.maxDepth) {
    throw invalidArgument(path, `groups nest deeper than ${QUERY_LIMITS.maxDepth} levels`);
  }
  const operator = parseName(record["operator"], `${path}.operator`);
  if (!isGroupOperator(operator)) {
    throw invalidArgument(`${path}.operator`, `unknown operator ${quoteValue(operator)}`);
  }
  const list = record["conditions"];
  if (!Array.isArray(list)) throw invalidArgument(`${path}.conditions`, "must be a list");
  if (list.length === 0) throw invalidArgument(`${path}.conditions`, "must not be empty");
  const conditions = list.map((item, i) => parseNode(item, `${path}.conditions[${i}]`, depth + 1, state));
  return { operator, conditions };
}

function parseCondition(record: Record<string, unknown>, path: string, state: ParseState): Condition {
  if (++state.conditions > QUERY_LIMITS.maxConditions) {
    throw invalidArgument(path, `a query may hold at most ${QUERY_LIMITS.maxConditions} conditions`);
  }
  const field = record["field"];
  if (field === undefined || field === null) throw invalidArgument(`${path}.field`, "is required");
  if (typeof field !== "string" || !isValidFieldPath(field)) {
    throw invalidArgument(`${path}.field`, `must be a dot path such as 'metadata.vehicle.id', got ${describe(field)}`);
  }
  const comparator = parseName(record["comparator"], `${path}.comparator`);
  if (!isComparator(comparator)) {
    throw invalidArgument(`${path}.comparator`, `unknown comparator ${quoteValue(comparator)}`);
  }
  return buildCondition(field, comparator, parseValue(record["value"], `${path}.value`), `${path}.value`);
}

function parseValue(value: unknown, path: string): ConditionValue | null | undefined {
  if (value === null || value === undefined) return value;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  throw invalidArgument(path, `must be a string, number or boolean, got ${describe(value)}`);
}

// Operators and comparators are accepted in any case and normalized to upper case.
function parseName(value: unknown, path: string): string {
  if (typeof value !== "string" || value === "") throw invalidArgument(path, "must be a non-empty string");
  return value.toUpperCase();
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "string") return quoteValue(value);
  return `a value of type ${typeof value}`;
}
