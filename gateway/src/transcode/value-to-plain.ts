import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { ListValue, Struct, Value } from "@bufbuild/protobuf/wkt";

/**
 * A google.protobuf.Value message as the JSON value it holds; an unset Value, or one with no kind,
 * is `null`, and so is a non-finite number (JSON has no spelling for it).
 */
export function valueToPlain(value: Value | undefined): JsonValue {
  const kind = value?.kind;
  switch (kind?.case) {
    case "stringValue":
    case "boolValue":
      return kind.value;
    case "numberValue":
      return Number.isFinite(kind.value) ? kind.value : null;
    case "structValue":
      return structToPlain(kind.value);
    case "listValue":
      return listValueToPlain(kind.value);
    default:
      return null;
  }
}

/** A google.protobuf.Struct message (the form found inside a Value) as a JSON object. */
export function structToPlain(struct: Struct): JsonObject {
  // No prototype: a key named `__proto__` stays an ordinary member.
  const out = Object.create(null) as JsonObject;
  for (const key of Object.keys(struct.fields)) out[key] = valueToPlain(struct.fields[key]);
  return out;
}

/** A google.protobuf.ListValue message as a JSON array. */
export function listValueToPlain(list: ListValue): JsonValue[] {
  return list.values.map(valueToPlain);
}
