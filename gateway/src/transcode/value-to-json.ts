import type { JsonValue } from "@bufbuild/protobuf";
import type { ListValue, Struct, Value } from "@bufbuild/protobuf/wkt";

/**
 * Writes a google.protobuf.Value message as JSON text; an unset Value, or one with no kind, is
 * `null`, and so is a non-finite number (JSON has no spelling for it).
 */
export function valueToJson(value: Value | undefined): string {
  const kind = value?.kind;
  switch (kind?.case) {
    case "stringValue":
      return JSON.stringify(kind.value);
    case "numberValue":
      return Number.isFinite(kind.value) ? String(kind.value) : "null";
    case "boolValue":
      return kind.value ? "true" : "false";
    case "structValue":
      return structToJson(kind.value);
    case "listValue":
      return listValueToJson(kind.value);
    default:
      return "null";
  }
}

/** Writes a google.protobuf.Struct message (the form found inside a Value) as a JSON object. */
export function structToJson(struct: Struct): string {
  let out = "{";
  let first = true;
  for (const key of Object.keys(struct.fields)) {
    out += (first ? "" : ",") + JSON.stringify(key) + ":" + valueToJson(struct.fields[key]);
    first = false;
  }
  return out + "}";
}

/** Writes a google.protobuf.ListValue message as a JSON array. */
export function listValueToJson(list: ListValue): string {
  let out = "[";
  for (let i = 0; i < list.values.length; i++) out += (i === 0 ? "" : ",") + valueToJson(list.values[i]);
  return out + "]";
}

/**
 * Writes the JsonObject that protobuf-es keeps for a google.protobuf.Struct field (or any JsonValue);
 * undefined, an unset Struct field, is `{}`.
 */
export function jsonValueToJson(value: JsonValue | undefined): string {
  return value === undefined ? "{}" : JSON.stringify(value);
}
