import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { NullValue, type ListValue, type Struct, type Value } from "@bufbuild/protobuf/wkt";
import { invalidArgument } from "@hangar/shared";
import { checkText } from "./check-text";
import { indexPath, isJsonObject, keyPath, setOwn } from "./json-path";

/**
 * Converts any JSON to a google.protobuf.Value message; null becomes a Value holding NULL_VALUE
 * (that is how update requests say "clear"). Exact big integers become the nearest double, as
 * Value can hold nothing wider. Text (keys too) holding U+0000 is refused (see `checkText`), and so
 * is a number past the double range (`1e400`), which no JSON printer could write back.
 */
export function jsonToValue(json: unknown, path: string): Value {
  switch (typeof json) {
    case "string":
      return { $typeName: "google.protobuf.Value", kind: { case: "stringValue", value: checkText(json, path) } };
    case "number":
    case "bigint":
      return { $typeName: "google.protobuf.Value", kind: { case: "numberValue", value: finiteNumber(json, path) } };
    case "boolean":
      return { $typeName: "google.protobuf.Value", kind: { case: "boolValue", value: json } };
    case "object":
      if (json === null) return { $typeName: "google.protobuf.Value", kind: { case: "nullValue", value: NullValue.NULL_VALUE } };
      if (Array.isArray(json)) return { $typeName: "google.protobuf.Value", kind: { case: "listValue", value: jsonToListValue(json, path) } };
      return { $typeName: "google.protobuf.Value", kind: { case: "structValue", value: jsonToStruct(json, path) } };
    default:
      throw invalidArgument(path, "expected a JSON value");
  }
}

/** Converts a JSON array to a google.protobuf.ListValue message. */
export function jsonToListValue(json: unknown, path: string): ListValue {
  if (!Array.isArray(json)) throw invalidArgument(path, "expected array");
  return { $typeName: "google.protobuf.ListValue", values: json.map((item, i) => jsonToValue(item, indexPath(path, i))) };
}

/** Converts a JSON object to a google.protobuf.Struct message (the form used inside Value). */
export function jsonToStruct(json: unknown, path: string): Struct {
  if (!isJsonObject(json)) throw invalidArgument(path, "expected object");
  const fields: Record<string, Value> = {};
  for (const key of Object.keys(json)) {
    const here = keyPath(path, key);
    setOwn(fields, checkText(key, here), jsonToValue(json[key], here));
  }
  return { $typeName: "google.protobuf.Struct", fields };
}

/**
 * Converts a JSON object to the JsonObject that protobuf-es stores in a google.protobuf.Struct
 * field: a copy with big integers turned into doubles, refusing text with U+0000 like `jsonToValue`.
 */
export function jsonToJsonObject(json: unknown, path: string): JsonObject {
  if (!isJsonObject(json)) throw invalidArgument(path, "expected object");
  return copyObject(json, path);
}

function copyObject(json: Record<string, unknown>, path: string): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(json)) setOwn(out, checkText(key, keyPath(path, key)), copyValue(json[key], path, key));
  return out;
}

function copyValue(json: unknown, path: string, key: string | number): JsonValue {
  const here = () => (typeof key === "number" ? indexPath(path, key) : keyPath(path, key));
  switch (typeof json) {
    case "string":
      return checkText(json, here());
    case "boolean":
      return json;
    case "number":
    case "bigint":
      return finiteNumber(json, here);
    case "object": {
      if (json === null) return null;
      const at = here();
      if (Array.isArray(json)) return json.map((item, i) => copyValue(item, at, i));
      return copyObject(json as Record<string, unknown>, at);
    }
    default:
      throw invalidArgument(here(), "expected a JSON value");
  }
}

/** A JSON number as a double; one that overflows it (a literal such as `1e400`) is a 400 at `path`. */
function finiteNumber(json: number | bigint, path: string | (() => string)): number {
  const value = Number(json);
  if (!Number.isFinite(value)) throw invalidArgument(typeof path === "string" ? path : path(), "number out of range");
  return value;
}
