import { getOption, hasOption, type DescField, type DescMessage, type JsonValue, type Message } from "@bufbuild/protobuf";
import { limits as limitsOption, type Limits } from "../gen/hangar/common/v1/limits_pb";
import { invalidArgument, quoteValue } from "../errors";
import type { ListValue, Value } from "@bufbuild/protobuf/wkt";
import { measureJson, type JsonField } from "./measure-json";

/** The well-known types that carry arbitrary JSON; their fields take max_bytes and max_depth. */
const JSON_TYPES = new Set(["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"]);

/** What to check of one field: its declared limits, and the message type to descend into. */
interface FieldPlan {
  field: DescField;
  limits: Limits | undefined;
  nested: DescMessage | undefined;
}

const plans = new WeakMap<DescMessage, FieldPlan[]>();

/**
 * Checks a request message against the `(hangar.common.v1.limits)` declared on its fields, and
 * on the fields of the messages it holds, and throws INVALID_ARGUMENT "<field path>: <rule>"
 * (JSON field names, e.g. `tags[3]: at most 200 characters`) at the first violation. The fields
 * to check are worked out once per message type.
 */
export function checkLimits(schema: DescMessage, message: Message): void {
  visitMessage(schema, message as unknown as Record<string, unknown>, "");
}

/** The fields of `schema` that declare limits or hold messages that do (cached; cycles allowed). */
function planOf(schema: DescMessage): FieldPlan[] {
  let plan = plans.get(schema);
  if (plan) return plan;
  plan = [];
  plans.set(schema, plan);
  for (const field of schema.fields) {
    const limits = hasOption(field, limitsOption) ? getOption(field, limitsOption) : undefined;
    // Other well-known types (Timestamp, wrappers) hold no unbounded value.
    const nested = field.message !== undefined && !field.message.typeName.startsWith("google.protobuf.") ? field.message : undefined;
    if (limits !== undefined || nested !== undefined) plan.push({ field, limits, nested });
  }
  return plan;
}

function visitMessage(schema: DescMessage, message: Record<string, unknown>, prefix: string): void {
  for (const plan of planOf(schema)) {
    const value = readField(message, plan.field);
    if (value === undefined || value === null) continue;
    const path = prefix + plan.field.name;
    switch (plan.field.fieldKind) {
      case "list":
        checkList(plan, value as unknown[], path);
        break;
      case "map":
        checkMap(plan, value as Record<string, unknown>, path);
        break;
      default:
        checkItem(plan, value, path);
    }
  }
}

function readField(message: Record<string, unknown>, field: DescField): unknown {
  if (field.oneof === undefined) return message[field.localName];
  const selected = message[field.oneof.localName] as { case?: string; value?: unknown };
  return selected.case === field.localName ? selected.value : undefined;
}

function checkList(plan: FieldPlan, items: unknown[], path: string): void {
  checkCount(items.length, plan.limits, path);
  for (let i = 0; i < items.length; i++) checkItem(plan, items[i], `${path}[${i}]`);
}

function checkMap(plan: FieldPlan, entries: Record<string, unknown>, path: string): void {
  const keys = Object.keys(entries);
  checkCount(keys.length, plan.limits, path);
  for (const key of keys) {
    const entryPath = `${path}[${quoteValue(key)}]`;
    const problem = plan.limits && stringProblem(key, plan.limits);
    if (problem) throw invalidArgument(entryPath, `keys are ${problem}`);
    checkItem(plan, entries[key], entryPath);
  }
}

function checkCount(count: number, limits: Limits | undefined, path: string): void {
  if (limits && limits.maxItems > 0 && count > limits.maxItems) throw invalidArgument(path, `at most ${limits.maxItems} items`);
}

/** Checks one value: a singular field's, or one item of a list or map. */
function checkItem(plan: FieldPlan, value: unknown, path: string): void {
  const { limits, nested } = plan;
  if (typeof value === "string") {
    const problem = limits && stringProblem(value, limits);
    if (problem) throw invalidArgument(path, problem);
  } else if (value instanceof Uint8Array) {
    if (limits && limits.maxBytes > 0 && value.length > limits.maxBytes) throw invalidArgument(path, `at most ${limits.maxBytes} bytes`);
  } else if (nested !== undefined && typeof value === "object" && value !== null) {
    visitMessage(nested, value as Record<string, unknown>, `${path}.`);
  } else if (limits && plan.field.message !== undefined && JSON_TYPES.has(plan.field.message.typeName)) {
    checkJson(jsonField(plan.field.message, value), limits, path);
  }
}

/** protobuf-es holds Struct fields as plain JSON and Value and ListValue fields as messages. */
function jsonField(type: DescMessage, value: unknown): JsonField {
  return type.typeName === "google.protobuf.Struct" ? { plain: value as JsonValue } : { message: value as Value | ListValue };
}

/** A Value holding a string is held to max_len; any JSON to max_bytes and max_depth. */
function checkJson(value: JsonField, limits: Limits, path: string): void {
  const text = "message" in value && value.message.$typeName === "google.protobuf.Value" && value.message.kind.case === "stringValue" ? value.message.kind.value : undefined;
  if (text !== undefined && limits.maxLen > 0 && tooLong(text, limits.maxLen)) throw invalidArgument(path, `at most ${limits.maxLen} characters`);
  const excess = measureJson(value, limits.maxBytes || Infinity, limits.maxDepth || Infinity);
  if (excess === "bytes") throw invalidArgument(path, `at most ${limits.maxBytes} bytes of JSON`);
  if (excess === "depth") throw invalidArgument(path, `at most ${limits.maxDepth} levels deep`);
}

/** What is wrong with a string under `limits` (too many characters, or bytes of UTF-8), if anything. */
function stringProblem(text: string, limits: Limits): string | undefined {
  if (limits.maxLen > 0 && tooLong(text, limits.maxLen)) return `at most ${limits.maxLen} characters`;
  // A UTF-16 unit takes at most 3 bytes of UTF-8, so short strings need no counting.
  if (limits.maxBytes > 0 && text.length * 3 > limits.maxBytes && Buffer.byteLength(text) > limits.maxBytes) return `at most ${limits.maxBytes} bytes of UTF-8`;
  return undefined;
}

/** True when `text` has more than `max` code points; counts them only when the UTF-16 length is in doubt. */
function tooLong(text: string, max: number): boolean {
  if (text.length <= max) return false;
  if (text.length > 2 * max) return true;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) i++; // a surrogate pair is one code point
    if (++count > max) return true;
  }
  return false;
}
