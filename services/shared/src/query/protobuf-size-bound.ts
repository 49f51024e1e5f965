import { ScalarType, type DescField, type DescMessage, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { isStructAsJson } from "../wire/local-forms";

type SizeBound = (value: unknown) => number;
type LocalMessage = Record<string, unknown>;
type MemberBound = (message: LocalMessage) => number;

/** A varint's most bytes (a negative int32 or any 64-bit value), and a length prefix's (under 4 GiB). */
const VARINT_MAX = 10;
const LENGTH_MAX = 5;

const messageBounds = new WeakMap<DescMessage, SizeBound>();

/**
 * An upper bound of a record's protobuf size, `create` + `toBinary`'s length, without encoding it:
 * every string as 3 bytes per UTF-16 unit, every varint and length at its widest, defaults as if
 * written. A walk of the record's own fields compiled once per message type, about a tenth of
 * `toBinary`'s CPU on a topic of 3 message paths, so a page far under its budget (see fitPage)
 * need not be encoded to know it.
 */
export function protobufSizeBound<Desc extends DescMessage>(schema: Desc, record: MessageInitShape<Desc>): number {
  return messageBound(schema)(record);
}

function messageBound(desc: DescMessage): SizeBound {
  let bound = messageBounds.get(desc);
  if (bound === undefined) {
    bound = fieldsBound(desc);
    messageBounds.set(desc, bound);
  }
  return bound;
}

/** Compiled lazily on first use, so recursive message types need no special care. */
function fieldsBound(desc: DescMessage): SizeBound {
  let fields: MemberBound[] | undefined;
  return (value) => {
    fields ??= [...desc.fields.filter((f) => f.oneof === undefined).map(memberBound), ...desc.oneofs.map(oneofBound)];
    const message = value as LocalMessage;
    let bytes = unknownFieldsBound(message.$unknown);
    for (let i = 0; i < fields.length; i++) bytes += fields[i]!(message);
    return bytes;
  };
}

function memberBound(field: DescField): MemberBound {
  const name = field.localName;
  const bound = singularOrListBound(field);
  return (m) => bound(m[name]);
}

function oneofBound(oneof: DescMessage["oneofs"][number]): MemberBound {
  const members = new Map(oneof.fields.map((f) => [f.localName, elementBound(f)]));
  const name = oneof.localName;
  return (m) => {
    const selected = m[name] as { case: string | undefined; value?: unknown } | undefined;
    const bound = selected?.case === undefined ? undefined : members.get(selected.case);
    return bound ? bound(selected!.value) : 0;
  };
}

/** A field outside a oneof, undefined when unset: wrappers are unboxed here (protobuf-es keeps the bare scalar). */
function singularOrListBound(field: DescField): SizeBound {
  switch (field.fieldKind) {
    case "list":
      return repeated(field.number, elementBound(field), (v) => (v ?? []) as unknown[]);
    case "map":
      return repeated(field.number, mapEntryBound(field), (v) => Object.entries((v ?? {}) as LocalMessage));
    case "message":
      if (isWrapperDesc(field.message)) return wrapped(field.number, scalarBound(field.message.fields[0]!.scalar!, 1));
      return optional(elementBound(field));
    default:
      return optional(elementBound(field));
  }
}

/** A list or a map: packed or not, its elements are at most one tag each and one length for the run. */
function repeated(fieldNumber: number, element: SizeBound, itemsOf: (value: unknown) => unknown[]): SizeBound {
  const head = tagSize(fieldNumber) + LENGTH_MAX;
  return (v) => {
    const items = itemsOf(v);
    let bytes = head;
    for (let i = 0; i < items.length; i++) bytes += element(items[i]);
    return bytes;
  };
}

/** One value of a field with its tag: a scalar, an enum, or a (length-delimited or group) message. */
function elementBound(field: DescField): SizeBound {
  const tag = tagSize(field.number);
  if (field.scalar !== undefined) return tagged(tag, scalarBound(field.scalar, 0));
  if (field.enum !== undefined) return () => tag + VARINT_MAX;
  return tagged(tag, messageValueBound(field));
}

/** A message value after its tag: its length (or a group's end tag) and its fields; Struct as protobuf-es keeps it. */
function messageValueBound(field: DescField): SizeBound {
  const message = isStructAsJson(field) ? jsonStructBound : messageBound(field.message!);
  const head = Math.max(LENGTH_MAX, tagSize(field.number));
  return (v) => head + message(v);
}

/** A map entry, `[key, value]`: a message of the key (field 1) and the value (field 2). */
function mapEntryBound(field: DescField & { fieldKind: "map" }): SizeBound {
  const outer = tagSize(field.number) + LENGTH_MAX;
  const key = tagged(1, scalarBound(field.mapKey, 0));
  const value = field.mapKind === "message" ? tagged(1, messageValueBound(field)) : field.mapKind === "enum" ? () => 1 + VARINT_MAX : tagged(1, scalarBound(field.scalar, 0));
  return (entry) => outer + key((entry as [string, unknown])[0]) + value((entry as [string, unknown])[1]);
}

/** A scalar's bytes after its tag; `extra` for the tag of a wrapper's own value field. */
function scalarBound(type: ScalarType, extra: number): SizeBound {
  switch (type) {
    case ScalarType.STRING:
      return (v) => extra + LENGTH_MAX + 3 * (v as string).length;
    case ScalarType.BYTES:
      return (v) => extra + LENGTH_MAX + (v as Uint8Array).byteLength;
    case ScalarType.BOOL:
      return () => extra + 1;
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
    case ScalarType.FLOAT:
      return () => extra + 4;
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
    case ScalarType.DOUBLE:
      return () => extra + 8;
    default:
      return () => extra + VARINT_MAX;
  }
}

function tagged(tag: number, value: SizeBound): SizeBound {
  return (v) => tag + value(v);
}

function optional(bound: SizeBound): SizeBound {
  return (v) => (v === undefined || v === null ? 0 : bound(v));
}

/** A wrapper message kept as its bare scalar: tag, length, then the scalar as field 1. */
function wrapped(fieldNumber: number, value: SizeBound): SizeBound {
  const head = tagSize(fieldNumber) + LENGTH_MAX;
  return (v) => (v === undefined || v === null ? 0 : head + value(v));
}

/** A google.protobuf.Struct kept as a JsonObject: the Struct message it encodes as (map<string, Value>). */
function jsonStructBound(value: unknown): number {
  let bytes = 0;
  const object = (value ?? {}) as Record<string, JsonValue>;
  for (const key of Object.keys(object)) bytes += 1 + LENGTH_MAX + (1 + LENGTH_MAX + 3 * key.length) + (1 + LENGTH_MAX + jsonValueBound(object[key]!));
  return bytes;
}

/** A JsonValue as the google.protobuf.Value message it encodes as. */
function jsonValueBound(value: JsonValue): number {
  if (value === null || typeof value === "boolean") return 2;
  if (typeof value === "number") return 9;
  if (typeof value === "string") return 1 + LENGTH_MAX + 3 * value.length;
  if (Array.isArray(value)) {
    let bytes = 1 + LENGTH_MAX;
    for (const item of value) bytes += 1 + LENGTH_MAX + jsonValueBound(item);
    return bytes;
  }
  return 1 + LENGTH_MAX + jsonStructBound(value);
}

/** Fields a message kept from a decoding without knowing them: their bytes, and each one's tag. */
function unknownFieldsBound(unknown: unknown): number {
  if (!Array.isArray(unknown)) return 0;
  let bytes = 0;
  for (const field of unknown as { data: Uint8Array }[]) bytes += LENGTH_MAX + field.data.byteLength;
  return bytes;
}

/** Bytes of a field's tag (number and wire type as one varint). */
function tagSize(fieldNumber: number): number {
  return fieldNumber < 16 ? 1 : fieldNumber < 2048 ? 2 : fieldNumber < 262_144 ? 3 : fieldNumber < 33_554_432 ? 4 : 5;
}
