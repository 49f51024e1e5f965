import { fieldAt, isImageType, MAX_FIELD_DEPTH } from "./field";
import type { CanonicalDataType, SchemaField } from "./field";

type JsonSchema = { [key: string]: unknown };

/**
 * The fields of a JSON Schema (`jsonschema`): each property of an `object`, recursively, with
 * local `$ref`s (`#/definitions/...`, `#/$defs/...`) resolved. `data_type` is the JSON type
 * (`integer`, `number`, ...); a union with `null` is the other type.
 */
export function jsonSchemaFields(text: string): SchemaField[] {
  const root = JSON.parse(text) as unknown;
  if (!isObject(root)) throw new Error("the JSON Schema is not an object");
  const fields: SchemaField[] = [];
  collect(root, root, [], fields);
  return fields;
}

function collect(schema: JsonSchema, root: JsonSchema, parent: string[], into: SchemaField[]): void {
  const properties = resolve(schema, root).properties;
  if (!isObject(properties) || parent.length >= MAX_FIELD_DEPTH) return;
  for (const [name, raw] of Object.entries(properties)) {
    if (!isObject(raw)) continue;
    const property = resolve(raw, root);
    const type = typeOf(property);
    into.push(fieldAt(parent, name, type, canonicalOf(type, property, root, raw)));
    if (type === "object") collect(property, root, [...parent, name], into);
  }
}

/** Follows local `$ref`s (a bounded number of times, so a reference cycle cannot loop). */
function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema {
  let current = schema;
  for (let hops = 0; hops < MAX_FIELD_DEPTH && typeof current.$ref === "string"; hops++) {
    const target = pointer(root, current.$ref);
    if (!target) break;
    current = target;
  }
  return current;
}

function pointer(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(1).split("/").filter(Boolean)) {
    node = isObject(node) ? node[part.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined;
  }
  return isObject(node) ? node : undefined;
}

function typeOf(schema: JsonSchema): string {
  const type = Array.isArray(schema.type) ? schema.type.find((entry) => entry !== "null") : schema.type;
  if (typeof type === "string") return type;
  if (isObject(schema.properties)) return "object";
  return "unknown";
}

function canonicalOf(type: string, schema: JsonSchema, root: JsonSchema, raw: JsonSchema): CanonicalDataType {
  switch (type) {
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "string":
      return "string";
    case "object":
      return typeof raw.$ref === "string" && isImageType(raw.$ref) ? "image" : "object";
    case "array": {
      const items = isObject(schema.items) ? typeOf(resolve(schema.items, root)) : "unknown";
      return items === "number" || items === "integer" ? "number_array" : "array";
    }
    default:
      return "unknown";
  }
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
