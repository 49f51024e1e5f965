import { create, ScalarType, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { invalidArgument } from "@hangar/shared";
import { parseDuration } from "./duration-text";
import { readEnumText } from "./enum-reader";
import { fieldTable } from "./field-table";
import { setOwn } from "./json-path";
import { scalarReader } from "./scalar-reader";
import { parseTimestamp } from "./timestamp-text";
import { isUnwrappedWrapper, messageForm } from "./message-form";

type LocalMessage = Record<string, unknown>;

/**
 * Sets a field named by a path of proto names (`["query", "limit"]`) from the text of a path or
 * query parameter, creating the intermediate messages. Scalars, enums (name or number), wrappers,
 * Timestamps and Durations are converted to the field's type; a repeated one gets the value
 * appended. A bad value, an unknown field or a field that text cannot fill is a 400.
 */
export function setFieldFromString(schema: DescMessage, message: Message, path: readonly string[], raw: string): void {
  const name = path.join(".");
  let desc = schema;
  let target = message as unknown as LocalMessage;
  for (let i = 0; ; i++) {
    const field = fieldTable(desc).byName.get(path[i] ?? "");
    if (field === undefined) throw invalidArgument(name, "no such field");
    if (i === path.length - 1) {
      setLeaf(target, field, raw, name);
      return;
    }
    if (field.fieldKind !== "message" || messageForm(field.message) !== "message") {
      throw invalidArgument(name, `${field.name} has no fields to set`);
    }
    target = childMessage(target, field);
    desc = field.message;
  }
}

function childMessage(target: LocalMessage, field: DescField & { fieldKind: "message" }): LocalMessage {
  const oneof = field.oneof;
  if (oneof === undefined) {
    let child = target[field.localName] as LocalMessage | undefined;
    if (child === undefined) setOwn(target, field.localName, (child = create(field.message) as unknown as LocalMessage));
    return child;
  }
  const current = target[oneof.localName] as { case: string | undefined; value?: LocalMessage };
  if (current.case === field.localName) return current.value!;
  const child = create(field.message) as unknown as LocalMessage;
  target[oneof.localName] = { case: field.localName, value: child };
  return child;
}

function setLeaf(target: LocalMessage, field: DescField, raw: string, name: string): void {
  if (field.fieldKind === "list") {
    if (field.listKind === "message") throw invalidArgument(name, "cannot be set from a parameter");
    const item = field.listKind === "enum" ? readEnumText(field.enum, raw, name) : readText(field.scalar, field.longAsString, raw, name);
    (target[field.localName] as unknown[]).push(item);
    return;
  }
  let local: unknown;
  if (field.fieldKind === "scalar") {
    local = readText(field.scalar, field.longAsString, raw, name);
  } else if (field.fieldKind === "enum") {
    local = readEnumText(field.enum, raw, name);
  } else if (field.fieldKind === "message") {
    local = readMessageText(field, raw, name);
  } else {
    throw invalidArgument(name, "cannot be set from a parameter");
  }
  if (field.oneof === undefined) setOwn(target, field.localName, local);
  else target[field.oneof.localName] = { case: field.localName, value: local };
}

function readMessageText(field: DescField & { fieldKind: "message" }, raw: string, name: string): unknown {
  const desc = field.message;
  switch (messageForm(desc)) {
    case "wrapper": {
      const value = readText(desc.fields[0]!.scalar!, false, raw, name);
      return isUnwrappedWrapper(field) ? value : { $typeName: desc.typeName, value };
    }
    case "timestamp": {
      const time = parseTimestamp(raw);
      if (time === undefined) throw invalidArgument(name, "expected an ISO 8601 date-time with a timezone, or a date");
      return { $typeName: desc.typeName, ...time };
    }
    case "duration": {
      const duration = parseDuration(raw);
      if (duration === undefined) throw invalidArgument(name, 'expected a duration such as "1.5s"');
      return { $typeName: desc.typeName, ...duration };
    }
    default:
      throw invalidArgument(name, "cannot be set from a parameter");
  }
}

function readText(type: ScalarType, longAsString: boolean, raw: string, name: string): unknown {
  if (type === ScalarType.BOOL) {
    if (raw === "true") return true;
    if (raw === "false") return false;
    throw invalidArgument(name, "expected true or false");
  }
  return scalarReader(type, longAsString)(raw, name);
}
