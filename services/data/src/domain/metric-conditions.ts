import { invalidArgument, isConditionGroup, parseConditionJson, quoteValue, type Comparator, type QueryNode } from "@hangar/shared";

/**
 * The most named groups a grouped metric read keeps (SDK 0.62's MAX_METRIC_GROUPS): those with the
 * most values in the requested window, ties by name; the null group is always kept.
 */
export const MAX_METRIC_GROUPS = 100;

/** Most names in one value query's `names`. */
export const MAX_QUERY_NAMES = 100;

/** What a value query may sort by (SDK 0.62's `sort_by`; `time` is the value's session time, the default). */
export const METRIC_SORT_FIELDS = ["time", "value", "published", "device_id", "session_id", "invocation_id", "group_key"] as const;
/** One of METRIC_SORT_FIELDS. */
export type MetricSortField = (typeof METRIC_SORT_FIELDS)[number];

/** An entity a metric condition's field names first. */
export type ConditionEntity = "session" | "device" | "collection";

// Each entity, singular or plural, as the SDK documents.
const CONDITION_ENTITIES: ReadonlyMap<string, ConditionEntity> = new Map([
  ["session", "session"],
  ["sessions", "session"],
  ["device", "device"],
  ["devices", "device"],
  ["collection", "collection"],
  ["collections", "collection"],
]);

/** The entity a field path names first (`session` for `sessions.tags`); undefined for any other first segment. */
export function conditionEntityOf(field: string): ConditionEntity | undefined {
  return CONDITION_ENTITIES.get(field.split(".", 1)[0] ?? "");
}

/** A `group_by` read: the producing device's id, or a custom field of the session or of the device. */
export type MetricGroupBy = { kind: "device_id" } | { kind: "custom"; entity: "session" | "device"; name: string };

// Comparators that ask what a field holds although they are negated: on a device field they do not
// match a value without a device, or a device without the field (SDK 0.62's rule), so they are
// read as "the field is set and the negation holds".
const HOLDS_A_VALUE: ReadonlySet<Comparator> = new Set<Comparator>(["NOT_EQUALS", "NOT_CONTAINS", "NOT_LIKE"]);

/**
 * Reads a metric read's `condition` (the query engine's JSON form; null: none) as the shared
 * compiler takes it: a NOT group is refused (SDK 0.62 refuses it), and negated comparators on
 * device fields also require the field to be set. Which fields exist is the store's catalog's to
 * say (an unknown one is a 400 naming its path there).
 */
export function readMetricCondition(json: unknown): QueryNode | undefined {
  const node = parseConditionJson(json, "condition");
  return node && withDeviceRule(node, "condition");
}

function withDeviceRule(node: QueryNode, path: string): QueryNode {
  if (isConditionGroup(node)) {
    if (node.operator === "NOT") throw invalidArgument(`${path}.operator`, "NOT groups are not supported in a metric condition");
    return { operator: node.operator, conditions: node.conditions.map((c, i) => withDeviceRule(c, `${path}.conditions[${i}]`)) };
  }
  if (conditionEntityOf(node.field) !== "device" || !HOLDS_A_VALUE.has(node.comparator)) return node;
  return { operator: "AND", conditions: [{ field: node.field, comparator: "IS_NOT_NULL" }, node] };
}

/**
 * Reads `group_by`: `device.device_id` (or `device.id`), `session.custom.<name>` or
 * `device.custom.<name>` (entities singular or plural); any other field is a 400 naming it, since a
 * group key must be one value per data point.
 */
export function readGroupBy(field: string | undefined): MetricGroupBy | undefined {
  if (field === undefined || field === "") return undefined;
  const [, second, ...rest] = field.split(".");
  const entity = conditionEntityOf(field);
  if (entity === "device" && (second === "device_id" || second === "id") && rest.length === 0) return { kind: "device_id" };
  if ((entity === "session" || entity === "device") && second === "custom" && rest.length > 0 && rest.every((s) => s !== "")) {
    return { kind: "custom", entity, name: rest.join(".") };
  }
  throw invalidArgument("group_by", `cannot group by ${quoteValue(field)}: one of 'device.device_id', 'session.custom.<name>', 'device.custom.<name>'`);
}

/** Reads `sort_by` (default `time`); `group_key` only when the read is grouped. */
export function readSortBy(sortBy: string | undefined, grouped: boolean): MetricSortField {
  if (sortBy === undefined || sortBy === "") return "time";
  if (!(METRIC_SORT_FIELDS as readonly string[]).includes(sortBy)) {
    throw invalidArgument("sort_by", `must be one of ${METRIC_SORT_FIELDS.map((f) => `'${f}'`).join(", ")}`);
  }
  if (sortBy === "group_key" && !grouped) throw invalidArgument("sort_by", "'group_key' needs group_by");
  return sortBy as MetricSortField;
}
