import { getOption, hasOption, type DescField, type DescMessage, type JsonValue, type Message } from "@bufbuild/protobuf";
import { json_inline_oneof } from "@hangar/shared/proto/common";
import { FeatureSet_FieldPresence, type ListValue, type Struct, type Value } from "@bufbuild/protobuf/wkt";
import { scalarZeroValue } from "@bufbuild/protobuf/reflect";
import { formatDuration } from "./duration-text";
import { enumWriter, scalarWriter, type ScalarWriter } from "./scalar-writer";
import { formatTimestamp } from "./timestamp-text";
import { jsonValueToJson, listValueToJson, structToJson, valueToJson } from "./value-to-json";
import { isStructAsJson, isUnwrappedWrapper, messageForm } from "./message-form";

type LocalMessage = Record<string, unknown>;
type Writer = (value: unknown) => string;
type FieldWriter = (message: LocalMessage) => string;

const messageWriters = new WeakMap<DescMessage, Writer>();
const fieldWriters = new WeakMap<DescField, Writer>();

/**
 * Writes a message as response JSON text with every field present under its proto name: 64-bit
 * integers as bare exact numbers, unset fields with explicit presence (proto3 `optional`, messages,
 * Value) as null, unset Struct fields as `{}`, empty lists `[]`, Timestamps as ISO 8601 UTC with
 * milliseconds, enums by name. Writers are compiled once per message type.
 */
export function messageToJson(schema: DescMessage, message: Message): string {
  return messageWriter(schema)(message);
}

/**
 * Writes one field's value (protobuf-es local form, undefined when unset) with the rules of
 * `messageToJson`, as for an HTTP binding whose `response_body` names a field.
 */
export function fieldValueToJson(field: DescField, value: unknown): string {
  return localWriter(field)(value);
}

function messageWriter(desc: DescMessage): Writer {
  let writer = messageWriters.get(desc);
  if (writer === undefined) {
    writer = newMessageWriter(desc);
    messageWriters.set(desc, writer);
  }
  return writer;
}

function newMessageWriter(desc: DescMessage): Writer {
  switch (messageForm(desc)) {
    case "timestamp":
      return (v) => `"${formatTimestamp((v as { seconds: bigint }).seconds, (v as { nanos: number }).nanos)}"`;
    case "duration":
      return (v) => `"${formatDuration((v as { seconds: bigint }).seconds, (v as { nanos: number }).nanos)}"`;
    case "value":
      return (v) => valueToJson(v as Value);
    case "struct":
      return (v) => structToJson(v as Struct);
    case "list_value":
      return (v) => listValueToJson(v as ListValue);
    case "field_mask":
      return (v) => JSON.stringify((v as { paths: string[] }).paths.join(","));
    case "time_value":
      return (v) => timeValueToJson((v as { kind: { case: string | undefined; value?: unknown } }).kind);
    case "wrapper": {
      const write = scalarWriter(desc.fields[0]!.scalar!);
      return (v) => write((v as { value: unknown }).value);
    }
    case "message":
      return hasOption(desc, json_inline_oneof) && getOption(desc, json_inline_oneof) ? inlineOneofWriter(desc) : fieldsWriter(desc);
  }
}

/** A message marked `json_inline_oneof`: the selected member's JSON alone (null when none is set). */
function inlineOneofWriter(desc: DescMessage): Writer {
  const oneof = desc.oneofs[0];
  if (!oneof || desc.fields.some((f) => f.oneof !== oneof)) throw new Error(`${desc.typeName}: json_inline_oneof needs exactly one oneof and no other field`);
  const writers = new Map(oneof.fields.map((f) => [f.localName, elementWriter(f)]));
  return (v) => {
    const selected = (v as LocalMessage)[oneof.localName] as { case: string | undefined; value?: unknown };
    const write = selected.case === undefined ? undefined : writers.get(selected.case);
    return write ? write(selected.value) : "null";
  };
}

/** Compiled lazily on first write, so recursive message types need no special care. */
function fieldsWriter(desc: DescMessage): Writer {
  let fields: FieldWriter[] | undefined;
  return (v) => {
    fields ??= desc.fields.map(memberWriter);
    const message = v as LocalMessage;
    let out = "{";
    for (let i = 0; i < fields.length; i++) out += (i === 0 ? "" : ",") + fields[i]!(message);
    return out + "}";
  };
}

function memberWriter(field: DescField): FieldWriter {
  const key = JSON.stringify(field.name) + ":";
  const name = field.localName;
  const oneof = field.oneof;
  if (oneof !== undefined) {
    const write = elementWriter(field);
    return (m) => {
      const selected = m[oneof.localName] as { case: string | undefined; value?: unknown };
      return key + (selected.case === name ? write(selected.value) : "null");
    };
  }
  const write = localWriter(field);
  // Explicit presence of a scalar is an own property (protobuf-es keeps defaults on the prototype).
  const explicitScalar =
    (field.fieldKind === "scalar" || field.fieldKind === "enum") && field.presence !== FeatureSet_FieldPresence.IMPLICIT;
  if (explicitScalar) return (m) => key + (Object.hasOwn(m, name) ? write(m[name]) : "null");
  return (m) => key + write(m[name]);
}

/** Writes a field's local value outside a oneof; undefined means unset. */
function localWriter(field: DescField): Writer {
  let writer = fieldWriters.get(field);
  if (writer === undefined) {
    writer = newLocalWriter(field);
    fieldWriters.set(field, writer);
  }
  return writer;
}

function newLocalWriter(field: DescField): Writer {
  switch (field.fieldKind) {
    case "scalar":
    case "enum": {
      const write = field.fieldKind === "scalar" ? scalarWriter(field.scalar) : enumWriter(field.enum);
      if (field.presence !== FeatureSet_FieldPresence.IMPLICIT) return (v) => (v === undefined ? "null" : write(v));
      const zero = write(field.fieldKind === "scalar" ? scalarZeroValue(field.scalar, field.longAsString) : field.enum.values[0]!.number);
      return (v) => (v === undefined ? zero : write(v));
    }
    case "message": {
      if (isStructAsJson(field)) return (v) => jsonValueToJson(v as JsonValue | undefined);
      const write = isUnwrappedWrapper(field) ? scalarWriter(field.message.fields[0]!.scalar!) : messageWriter(field.message);
      return (v) => (v === undefined ? "null" : write(v));
    }
    case "list": {
      const write = elementWriter(field);
      return (v) => {
        const items = (v ?? []) as unknown[];
        let out = "[";
        for (let i = 0; i < items.length; i++) out += (i === 0 ? "" : ",") + write(items[i]);
        return out + "]";
      };
    }
    case "map": {
      const write = elementWriter(field);
      return (v) => {
        const map = (v ?? {}) as Record<string, unknown>;
        let out = "{";
        let first = true;
        for (const key of Object.keys(map)) {
          out += (first ? "" : ",") + JSON.stringify(key) + ":" + write(map[key]);
          first = false;
        }
        return out + "}";
      };
    }
  }
}

/** Writes one value of a list, a map or a oneof member, where wrappers stay messages. */
function elementWriter(field: DescField): ScalarWriter {
  if (field.scalar !== undefined) return scalarWriter(field.scalar);
  if (field.enum !== undefined) return enumWriter(field.enum);
  if (isStructAsJson(field)) return (v) => jsonValueToJson(v as JsonValue);
  return messageWriter(field.message!);
}

/** A TimeValue as a request gave it: exact nanoseconds, the seconds' number, the text, or null. */
function timeValueToJson(kind: { case: string | undefined; value?: unknown }): string {
  switch (kind.case) {
    case "nanoseconds":
    case "seconds":
      return String(kind.value);
    case "text":
      return JSON.stringify(kind.value);
    default:
      return "null";
  }
}
