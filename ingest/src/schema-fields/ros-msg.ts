import { parse } from "@foxglove/rosmsg";
import type { MessageDefinition, MessageDefinitionField } from "@foxglove/message-definition";
import { fieldAt, isImageType, MAX_FIELD_DEPTH } from "./field";
import type { CanonicalDataType, SchemaField } from "./field";

const NUMBERS = new Set(["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64"]);
const BYTES = new Set(["byte", "uint8", "char", "int8"]);
// ROS 1's time primitives are structs of seconds and nanoseconds.
const TIME_PARTS: Record<string, [string, string][]> = {
  time: [["sec", "uint32"], ["nsec", "uint32"]],
  duration: [["sec", "int32"], ["nsec", "int32"]],
};

/**
 * The fields of a ROS `.msg` definition (`ros1msg`, or `ros2msg` when `ros2`), parsed by
 * `@foxglove/rosmsg` with its dependent definitions; constants are not fields.
 */
export function rosMsgFields(text: string, ros2: boolean): SchemaField[] {
  const [root, ...dependencies] = parse(text, { ros2 });
  if (!root) return [];
  const byName = new Map(dependencies.map((definition) => [definition.name, definition]));
  const fields: SchemaField[] = [];
  collect(root, [], byName, fields);
  return fields;
}

function collect(definition: MessageDefinition, parent: string[], byName: Map<string | undefined, MessageDefinition>, into: SchemaField[]): void {
  for (const field of definition.definitions) {
    if (field.isConstant === true) continue;
    const dataType = typeName(field);
    const canonical = canonicalOf(field);
    into.push(fieldAt(parent, field.name, dataType, canonical));
    if (field.isArray === true || parent.length + 1 >= MAX_FIELD_DEPTH) continue;
    const path = [...parent, field.name];
    const nested = field.isComplex === true ? byName.get(field.type) : undefined;
    if (nested) collect(nested, path, byName, into);
    for (const [name, type] of TIME_PARTS[field.type] ?? []) into.push(fieldAt(path, name, type, "number"));
  }
}

function typeName(field: MessageDefinitionField): string {
  if (field.isArray !== true) return field.type;
  return `${field.type}[${field.arrayLength ?? ""}]`;
}

function canonicalOf(field: MessageDefinitionField): CanonicalDataType {
  if (field.isArray === true) {
    if (BYTES.has(field.type)) return "array";
    return NUMBERS.has(field.type) ? "number_array" : "array";
  }
  if (field.isComplex === true) return isImageType(field.type) ? "image" : "object";
  if (field.type === "bool") return "boolean";
  if (field.type === "byte") return "byte";
  if (field.type === "string" || field.type === "wstring" || field.type === "char") return "string";
  if (NUMBERS.has(field.type)) return "number";
  return field.type in TIME_PARTS ? "object" : "unknown";
}
