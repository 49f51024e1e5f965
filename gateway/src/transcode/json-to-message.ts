import { create, ScalarType, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { badRequest, invalidArgument } from "@hangar/shared";
import { parseDuration } from "./duration-text";
import { readEnum } from "./enum-reader";
import { fieldTable } from "./field-table";
import { fieldPath, indexPath, isJsonObject, keyPath, setOwn } from "./json-path";
import { scalarReader } from "./scalar-reader";
import { jsonToJsonObject, jsonToListValue, jsonToStruct, jsonToValue } from "./json-to-value";
import { parseTimestamp } from "./timestamp-text";
import { checkText } from "./check-text";
import { isStructAsJson, isUnwrappedWrapper, messageForm } from "./message-form";

/** Options of `jsonToMessage`. */
export interface JsonToMessageOptions {
  /**
   * Top-level proto field names that the caller fills from elsewhere (path or query parameters),
   * so the required-field check skips them. Default: none.
   */
  readonly provided?: ReadonlySet<string>;
}

type Reader = (json: unknown, path: string) => unknown;

interface FieldReader {
  readonly field: DescField;
  /** Null is a value for this field (google.protobuf.Value, NullValue) rather than "unset". */
  readonly keepsNull: boolean;
  readonly read: Reader;
}

interface MessageReader {
  readonly byName: ReadonlyMap<string, FieldReader>;
  readonly required: readonly FieldReader[];
}

type LocalMessage = Record<string, unknown>;

const readers = new WeakMap<DescMessage, MessageReader>();

/**
 * Builds a message from parsed JSON (see `readJsonBody`), driven only by the descriptor. Keys are
 * proto names or JSON names; unknown keys are ignored; null means unset, except that a
 * google.protobuf.Value field holds it as NULL_VALUE (so it also satisfies REQUIRED). A wrong type,
 * or a REQUIRED field absent or null, is a 400 naming the full field path, prefixed with
 * `pathPrefix`. Undefined or null JSON reads as an empty object.
 */
export function jsonToMessage<T extends Message>(
  schema: DescMessage,
  json: unknown,
  pathPrefix = "",
  options: JsonToMessageOptions = {},
): T {
  const body = json ?? {};
  if (messageForm(schema) !== "message") return messageReader(schema)(body, pathPrefix || "body") as T;
  if (!isJsonObject(body) && pathPrefix === "") throw badRequest("request body must be a JSON object");
  return readFields(schema, body, pathPrefix, options.provided) as T;
}

/**
 * Sets one field of `message` from JSON with the rules of `jsonToMessage`, as for an HTTP
 * binding whose `body` names a field. Null leaves the field unset (a Value field holds NULL_VALUE).
 */
export function setFieldFromJson(message: Message, field: DescField, json: unknown, path = field.name): void {
  const reader = compiledField(field);
  if (json === null && !reader.keepsNull) return;
  assign(message as unknown as LocalMessage, field, reader.read(json, path), path);
}

function readFields(schema: DescMessage, json: unknown, path: string, provided?: ReadonlySet<string>): LocalMessage {
  if (!isJsonObject(json)) throw invalidArgument(path, "expected object");
  const reader = compiledMessage(schema);
  const message = create(schema) as unknown as LocalMessage;
  const seen = reader.required.length > 0 ? new Set<FieldReader>() : undefined;
  for (const key of Object.keys(json)) {
    const fieldReader = reader.byName.get(key);
    if (fieldReader === undefined) continue;
    const value = json[key];
    if (value === null && !fieldReader.keepsNull) continue;
    const here = fieldPath(path, fieldReader.field.name);
    assign(message, fieldReader.field, fieldReader.read(value, here), here);
    seen?.add(fieldReader);
  }
  for (const required of reader.required) {
    if (!seen!.has(required) && !provided?.has(required.field.name)) {
      throw invalidArgument(fieldPath(path, required.field.name), "is required");
    }
  }
  return message;
}

function assign(message: LocalMessage, field: DescField, local: unknown, path: string): void {
  const oneof = field.oneof;
  if (oneof === undefined) {
    setOwn(message, field.localName, local);
    return;
  }
  const current = message[oneof.localName] as { case: string | undefined };
  if (current.case !== undefined && current.case !== field.localName) {
    const other = oneof.fields.find((f) => f.localName === current.case)?.name ?? current.case;
    throw invalidArgument(path, `cannot be set together with ${other}`);
  }
  message[oneof.localName] = { case: field.localName, value: local };
}

function fail(path: string, problem: string): never {
  throw invalidArgument(path, problem);
}

function compiledMessage(schema: DescMessage): MessageReader {
  let reader = readers.get(schema);
  if (reader === undefined) {
    const table = fieldTable(schema);
    const byField = new Map(schema.fields.map((f) => [f, compiledField(f)]));
    const byName = new Map<string, FieldReader>();
    for (const [name, field] of table.byName) byName.set(name, byField.get(field)!);
    reader = { byName, required: table.required.map((f) => byField.get(f)!) };
    readers.set(schema, reader);
  }
  return reader;
}

const fieldReaders = new WeakMap<DescField, FieldReader>();

function compiledField(field: DescField): FieldReader {
  let reader = fieldReaders.get(field);
  if (reader === undefined) {
    const keepsNull =
      (field.fieldKind === "message" && (field.message.typeName === "google.protobuf.Value" || messageForm(field.message) === "time_value")) ||
      (field.fieldKind === "enum" && field.enum.typeName === "google.protobuf.NullValue");
    reader = { field, keepsNull, read: fieldValueReader(field) };
    fieldReaders.set(field, reader);
  }
  return reader;
}

function fieldValueReader(field: DescField): Reader {
  switch (field.fieldKind) {
    case "scalar":
      return scalarReader(field.scalar, field.longAsString);
    case "enum":
      return (json, path) => readEnum(field.enum, json, path);
    case "message":
      if (isUnwrappedWrapper(field)) return scalarReader(field.message.fields[0]!.scalar!);
      return elementReader(field);
    case "list": {
      const item = elementReader(field);
      return (json, path) => {
        if (!Array.isArray(json)) throw invalidArgument(path, "expected array");
        return json.map((value, i) => item(value, indexPath(path, i)));
      };
    }
    case "map": {
      const key = mapKeyReader(field.mapKey);
      const value = elementReader(field);
      return (json, path) => {
        if (!isJsonObject(json)) throw invalidArgument(path, "expected object");
        const map: LocalMessage = {};
        for (const k of Object.keys(json)) setOwn(map, key(k, keyPath(path, k)), value(json[k], keyPath(path, k)));
        return map;
      };
    }
  }
}

/** Reads one value of a singular, list or map field in protobuf-es's local representation. */
function elementReader(field: DescField): Reader {
  if (field.scalar !== undefined) return scalarReader(field.scalar, "longAsString" in field && field.longAsString);
  if (field.enum !== undefined) return (json, path) => readEnum(field.enum!, json, path);
  if (isStructAsJson(field)) return jsonToJsonObject;
  return messageReader(field.message!);
}

/** Map keys stay strings in protobuf-es; this checks they are valid for the key type and normalizes them. */
function mapKeyReader(type: ScalarType): (key: string, path: string) => string {
  if (type === ScalarType.BOOL) {
    return (key, path) => (key === "true" || key === "false" ? key : fail(path, "expected map key true or false"));
  }
  const read = scalarReader(type);
  return (key, path) => String(read(key, path));
}

/** Reads a message value in its JSON form: the well-known types' strings and values, or an object. */
function messageReader(desc: DescMessage): Reader {
  switch (messageForm(desc)) {
    case "timestamp":
      return (json, path) => {
        const time = typeof json === "string" ? parseTimestamp(json) : undefined;
        if (time === undefined) throw invalidArgument(path, "expected an ISO 8601 date-time with a timezone, or a date");
        return { $typeName: desc.typeName, ...time };
      };
    case "duration":
      return (json, path) => {
        const duration = typeof json === "string" ? parseDuration(json) : undefined;
        if (duration === undefined) throw invalidArgument(path, 'expected a duration such as "1.5s"');
        return { $typeName: desc.typeName, ...duration };
      };
    case "value":
      return jsonToValue;
    case "struct":
      return jsonToStruct;
    case "list_value":
      return jsonToListValue;
    case "field_mask":
      return (json, path) => {
        if (typeof json !== "string") throw invalidArgument(path, "expected string");
        const paths = json === "" ? [] : json.split(",").map((p) => p.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase()));
        return { $typeName: desc.typeName, paths };
      };
    case "wrapper": {
      const read = scalarReader(desc.fields[0]!.scalar!);
      return (json, path) => ({ $typeName: desc.typeName, value: read(json, path) });
    }
    case "time_value":
      return (json, path) => ({ $typeName: desc.typeName, kind: timeValueKind(json, path) });
    case "message":
      return (json, path) => readFields(desc, json, path);
  }
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** A TimeValue's JSON (see time_value.proto): integers keep every digit as nanoseconds; other numbers are seconds. */
function timeValueKind(json: unknown, path: string): { case: string; value: unknown } {
  if (json === null) return { case: "nullValue", value: true };
  if (typeof json === "bigint") {
    if (json < INT64_MIN || json > INT64_MAX) throw invalidArgument(path, "is outside the 64-bit range of nanoseconds");
    return { case: "nanoseconds", value: json };
  }
  if (typeof json === "number" && Number.isFinite(json)) return Number.isInteger(json) ? { case: "nanoseconds", value: BigInt(json) } : { case: "seconds", value: String(json) };
  if (typeof json === "string") return { case: "text", value: checkText(json, path) };
  throw invalidArgument(path, "expected an integer of nanoseconds, a number of seconds, numeric or ISO 8601 text, or null");
}
