import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { isConditionGroup, type Comparator, type QueryNode } from "@hangar/shared";
import { explicitRoot } from "./trigger-definition";

/**
 * What a trigger's condition and `{{ }}` placeholders read when an event fires it: one record per
 * namespace root (`envelope`, `dataset`, `file`, `schedule`, ...), null when the event has none.
 */
export interface TriggerNamespace {
  records: Record<string, JsonObject | null>;
  /** The root an unqualified field reads (the event type's default root). */
  defaultRoot: string;
}

/** The value at a dotted path (`dataset.metadata.robot`, or `metadata.robot` under the default root); undefined when absent. */
export function valueAt(namespace: TriggerNamespace, path: string): JsonValue | undefined {
  const root = explicitRoot(path);
  const segments = path.split(".");
  let current: JsonValue | undefined = namespace.records[root ?? namespace.defaultRoot] ?? undefined;
  for (const segment of root === undefined ? segments : segments.slice(1)) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return undefined;
    current = current[segment];
  }
  return current;
}

/** One leaf of a condition as evaluated: what it expected, what it found, whether it held. */
export interface LeafTrace {
  field: string;
  comparator: Comparator;
  expected: JsonValue;
  actual: JsonValue;
  passed: boolean;
}

/** Evaluates a condition over the namespace, recording every leaf it looked at (for dry runs). */
export function evaluateCondition(node: QueryNode, namespace: TriggerNamespace, trace: LeafTrace[] = []): boolean {
  if (isConditionGroup(node)) {
    const results = node.conditions.map((child) => evaluateCondition(child, namespace, trace));
    if (node.operator === "AND") return results.every(Boolean);
    return node.operator === "OR" ? results.some(Boolean) : !results.some(Boolean);
  }
  const actual = valueAt(namespace, node.field);
  const passed = compare(node.comparator, actual, node.value);
  trace.push({ field: node.field, comparator: node.comparator, expected: node.value ?? null, actual: actual ?? null, passed });
  return passed;
}

function compare(comparator: Comparator, actual: JsonValue | undefined, expected: string | number | boolean | undefined): boolean {
  switch (comparator) {
    case "EXISTS":
      return actual !== undefined;
    case "NOT_EXISTS":
      return actual === undefined;
    case "IS_NULL":
      return actual === undefined || actual === null;
    case "IS_NOT_NULL":
      return actual !== undefined && actual !== null;
    case "EQUALS":
      return equals(actual, expected);
    case "NOT_EQUALS":
      return !equals(actual, expected);
    case "CONTAINS":
      return contains(actual, expected);
    case "NOT_CONTAINS":
      return !contains(actual, expected);
    case "BEGINS_WITH":
      return typeof actual === "string" && actual.startsWith(String(expected));
    case "LIKE":
      return typeof actual === "string" && likeRegex(String(expected)).test(actual);
    case "NOT_LIKE":
      return !(typeof actual === "string" && likeRegex(String(expected)).test(actual));
    default:
      return ordered(comparator, actual, expected);
  }
}

function equals(actual: JsonValue | undefined, expected: unknown): boolean {
  if (actual === undefined || actual === null || typeof actual === "object") return false;
  return actual === expected || String(actual) === String(expected);
}

// As the query engine's SQL does: text CONTAINS ignores case (ILIKE), a list holds an item exactly.
function contains(actual: JsonValue | undefined, expected: unknown): boolean {
  if (Array.isArray(actual)) return actual.some((item) => equals(item, expected));
  return typeof actual === "string" && actual.toLowerCase().includes(String(expected).toLowerCase());
}

function ordered(comparator: Comparator, actual: JsonValue | undefined, expected: unknown): boolean {
  if (actual === undefined || actual === null || typeof actual === "object") return false;
  const numeric = typeof actual === "number" || (actual !== "" && !Number.isNaN(Number(actual)) && typeof expected === "number");
  const sign = numeric ? Math.sign(Number(actual) - Number(expected)) : String(actual) < String(expected) ? -1 : String(actual) > String(expected) ? 1 : 0;
  if (comparator === "GREATER_THAN") return sign > 0;
  if (comparator === "GREATER_THAN_OR_EQUAL") return sign >= 0;
  if (comparator === "LESS_THAN") return sign < 0;
  return sign <= 0;
}

function likeRegex(pattern: string): RegExp {
  const body = pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/%/g, ".*").replace(/_/g, ".");
  return new RegExp(`^${body}$`, "s");
}

const PLACEHOLDER = /\{\{\s*([\w.-]+)\s*\}\}/g;

/** Replaces `{{ root.path }}` placeholders in every string leaf with the namespace's value ("" when absent). */
export function renderPlaceholders<T extends JsonValue>(value: T, namespace: TriggerNamespace): T {
  if (typeof value === "string") return value.replace(PLACEHOLDER, (_, path: string) => textOf(valueAt(namespace, path))) as T;
  if (Array.isArray(value)) return value.map((item) => renderPlaceholders(item, namespace)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderPlaceholders(item, namespace)])) as T;
  }
  return value;
}

function textOf(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}
