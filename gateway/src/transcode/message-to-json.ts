import { getOption, hasOption, type DescField, type DescMessage, type JsonValue, type Message } from "@bufbuild/protobuf";
import { json_inline_oneof } from "@hangar/shared/proto/common";
import { FeatureSet_FieldPresence, type ListValue, type Struct, type Value } from "@bufbuild/protobuf/wkt";
import { scalarZeroValue } from "@bufbuild/protobuf/reflect";
import { formatDuration } from "./duration-text";
import { enumToPlain, longToPlain, numberText, scalarToPlain, type ScalarToPlain } from "./scalar-to-plain";
import { formatTimestamp } from "./timestamp-text";
import { listValueToPlain, structToPlain, valueToPlain } from "./value-to-plain";
import { isStructAsJson, isUnwrappedWrapper, messageForm } from "./message-form";

type LocalMessage = Record<string, unknown>;
/** Turns a value of protobuf-es's local form into the value `JSON.stringify` writes as its response JSON. */
type ToPlain = (value: unknown) => unknown;

const messageConverters = new WeakMap<DescMessage, ToPlain>();
const fieldConverters = new WeakMap<DescField, ToPlain>();

/**
 * Writes a message as response JSON text with every field present under its proto name: 64-bit
 * integers as bare exact numbers, unset fields with explicit presence (proto3 `optional`, messages,
 * Value) as null, unset Struct fields as `{}`, empty lists `[]`, Timestamps as ISO 8601 UTC with
 * milliseconds, enums by name.
 *
 * The message becomes plain objects, arrays and scalars (converters compiled once per message
 * type; Struct fields and strings are referenced, not copied), and `JSON.stringify` writes the text
 * in one native pass. Measured with bench:topic-page-cpu on a page of 100 topics: concatenating the
 * text piece by piece made tens of thousands of strings, and flattening them for the socket cost
 * as much again as writing them.
 */
export function messageToJson(schema: DescMessage, message: Message): string {
  return JSON.stringify(messageToPlain(schema, message));
}

/**
 * Writes one field's value (protobuf-es local form, undefined when unset) with the rules of
 * `messageToJson`, as for an HTTP binding whose `response_body` names a field.
 */
export function fieldValueToJson(field: DescField, value: unknown): string {
  return JSON.stringify(fieldValueToPlain(field, value));
}

/** The value `JSON.stringify` writes as `messageToJson`'s text, for a caller that writes it inside a larger value. */
export function messageToPlain(schema: DescMessage, message: Message): unknown {
  return convertingOnce(messageConverter(schema), message);
}

/** The value `JSON.stringify` writes as `fieldValueToJson`'s text. */
export function fieldValueToPlain(field: DescField, value: unknown): unknown {
  return convertingOnce(localConverter(field), value);
}

/**
 * The plain form of each message object met in a list during one write. A response may hold one
 * message object in several places (a topic's representation in the list of every message path
 * it holds): it is converted once and its plain form written again. The caller hands over
 * messages it no longer changes, and the memo lives for one write only.
 */
let listedMessages: Map<object, unknown> | undefined;

function convertingOnce(convert: ToPlain, value: unknown): unknown {
  const outer = listedMessages;
  listedMessages = new Map();
  try {
    return convert(value);
  } finally {
    listedMessages = outer;
  }
}

/** Converts a message of a list, or reuses its plain form when this write met the same object before. */
function listedMessageConverter(convert: ToPlain): ToPlain {
  return (v) => {
    const memo = listedMessages;
    if (memo === undefined) return convert(v);
    let plain = memo.get(v as object);
    if (plain === undefined) {
      plain = convert(v);
      memo.set(v as object, plain);
    }
    return plain;
  };
}

function messageConverter(desc: DescMessage): ToPlain {
  let convert = messageConverters.get(desc);
  if (convert === undefined) {
    convert = newMessageConverter(desc);
    messageConverters.set(desc, convert);
  }
  return convert;
}

function newMessageConverter(desc: DescMessage): ToPlain {
  switch (messageForm(desc)) {
    case "timestamp":
      return (v) => formatTimestamp((v as { seconds: bigint }).seconds, (v as { nanos: number }).nanos);
    case "duration":
      return (v) => formatDuration((v as { seconds: bigint }).seconds, (v as { nanos: number }).nanos);
    case "value":
      return (v) => valueToPlain(v as Value);
    case "struct":
      return (v) => structToPlain(v as Struct);
    case "list_value":
      return (v) => listValueToPlain(v as ListValue);
    case "field_mask":
      return (v) => (v as { paths: string[] }).paths.join(",");
    case "time_value":
      return (v) => timeValueToPlain((v as { kind: { case: string | undefined; value?: unknown } }).kind);
    case "wrapper": {
      const convert = scalarToPlain(desc.fields[0]!.scalar!);
      return (v) => convert((v as { value: unknown }).value);
    }
    case "message":
      return hasOption(desc, json_inline_oneof) && getOption(desc, json_inline_oneof) ? inlineOneofConverter(desc) : fieldsConverter(desc);
  }
}

/** A message marked `json_inline_oneof`: the selected member's value alone (null when none is set). */
function inlineOneofConverter(desc: DescMessage): ToPlain {
  const oneof = desc.oneofs[0];
  if (!oneof || desc.fields.some((f) => f.oneof !== oneof)) throw new Error(`${desc.typeName}: json_inline_oneof needs exactly one oneof and no other field`);
  const converters = new Map(oneof.fields.map((f) => [f.localName, elementConverter(f)]));
  return (v) => {
    const selected = (v as LocalMessage)[oneof.localName] as { case: string | undefined; value?: unknown };
    const convert = selected.case === undefined ? undefined : converters.get(selected.case);
    return convert ? convert(selected.value) : null;
  };
}

/**
 * An object of every field under its proto name, in declaration order. Compiled lazily on first
 * use, so recursive message types need no special care, into one object literal per message type
 * (the field names are the descriptor's, each written with JSON.stringify): every object of a type
 * gets one shape at once and each field is read by its own name, where a loop of keyed stores
 * cost a page of 100 topics half of its conversion (bench:topic-page-cpu).
 */
function fieldsConverter(desc: DescMessage): ToPlain {
  let convert: ToPlain | undefined;
  return (v) => (convert ??= compiledFields(desc))(v);
}

function compiledFields(desc: DescMessage): ToPlain {
  const converters: ToPlain[] = [];
  const members = desc.fields.map((field) => `${JSON.stringify(field.name)}: ${memberExpression(field, converters)}`);
  // The text holds descriptor names only, each quoted by JSON.stringify.
  const compile = new Function("c", "hasOwn", `return (m) => ({${members.join(", ")}});`) as (c: ToPlain[], hasOwn: typeof Object.hasOwn) => ToPlain;
  return compile(converters, Object.hasOwn);
}

/** The expression of one member's plain value, reading the message `m`; its converter is `c[i]`. */
function memberExpression(field: DescField, converters: ToPlain[]): string {
  const read = (name: string) => `m[${JSON.stringify(name)}]`;
  const oneof = field.oneof;
  if (oneof !== undefined) {
    const at = converters.push(elementConverter(field)) - 1;
    const selected = read(oneof.localName);
    return `${selected}.case === ${JSON.stringify(field.localName)} ? c[${at}](${selected}.value) : null`;
  }
  const at = converters.push(localConverter(field)) - 1;
  // Explicit presence of a scalar is an own property (protobuf-es keeps defaults on the prototype).
  const explicitScalar =
    (field.fieldKind === "scalar" || field.fieldKind === "enum") && field.presence !== FeatureSet_FieldPresence.IMPLICIT;
  const local = read(field.localName);
  return explicitScalar ? `hasOwn(m, ${JSON.stringify(field.localName)}) ? c[${at}](${local}) : null` : `c[${at}](${local})`;
}

/** Converts a field's local value outside a oneof; undefined means unset. */
function localConverter(field: DescField): ToPlain {
  let convert = fieldConverters.get(field);
  if (convert === undefined) {
    convert = newLocalConverter(field);
    fieldConverters.set(field, convert);
  }
  return convert;
}

function newLocalConverter(field: DescField): ToPlain {
  switch (field.fieldKind) {
    case "scalar":
    case "enum": {
      const convert = field.fieldKind === "scalar" ? scalarToPlain(field.scalar) : enumToPlain(field.enum);
      if (field.presence !== FeatureSet_FieldPresence.IMPLICIT) return (v) => (v === undefined ? null : convert(v));
      const zero = convert(field.fieldKind === "scalar" ? scalarZeroValue(field.scalar, field.longAsString) : field.enum.values[0]!.number);
      return (v) => (v === undefined ? zero : convert(v));
    }
    case "message": {
      if (isStructAsJson(field)) return (v) => (v === undefined ? {} : v);
      const convert = isUnwrappedWrapper(field) ? scalarToPlain(field.message.fields[0]!.scalar!) : messageConverter(field.message);
      return (v) => (v === undefined ? null : convert(v));
    }
    case "list": {
      const convert = elementConverter(field);
      return (v) => ((v ?? []) as unknown[]).map((item) => convert(item));
    }
    case "map": {
      const convert = elementConverter(field);
      return (v) => {
        const map = (v ?? {}) as Record<string, unknown>;
        // No prototype: a key named `__proto__` stays an ordinary member.
        const out = Object.create(null) as LocalMessage;
        for (const key of Object.keys(map)) out[key] = convert(map[key]);
        return out;
      };
    }
  }
}

/** Converts one value of a list, a map or a oneof member, where wrappers stay messages. */
function elementConverter(field: DescField): ScalarToPlain {
  if (field.scalar !== undefined) return scalarToPlain(field.scalar);
  if (field.enum !== undefined) return enumToPlain(field.enum);
  if (isStructAsJson(field)) return (v) => v as JsonValue;
  const convert = messageConverter(field.message!);
  return field.fieldKind === "list" ? listedMessageConverter(convert) : convert;
}

/** A TimeValue as a request gave it: exact nanoseconds, the seconds' number, the text, or null. */
function timeValueToPlain(kind: { case: string | undefined; value?: unknown }): unknown {
  switch (kind.case) {
    case "nanoseconds":
      return longToPlain(kind.value);
    case "seconds":
      return numberText(kind.value as string);
    case "text":
      return kind.value;
    default:
      return null;
  }
}
