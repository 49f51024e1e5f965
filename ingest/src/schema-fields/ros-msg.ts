import { parse } from "@foxglove/rosmsg";
import type { MessageDefinition, MessageDefinitionField } from "@foxglove/message-definition";
import { fieldAt, isImageType, MAX_FIELD_DEPTH } from "./field";
import type { CanonicalDataType, SchemaField } from "./field";

const NUMBERS = new Set(["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64"]);
const BYTES = new Set(["byte", "uint8", "char", "int8"]);
// @foxglove/rosmsg parses ROS 1's time primitives and ROS 2's builtin_interfaces Time and Duration
// all as `time` / `duration`; each is a struct of seconds and nanoseconds, named as each ROS names them.
const TIME_PARTS = {
  ros1: { time: [["sec", "uint32"], ["nsec", "uint32"]], duration: [["sec", "int32"], ["nsec", "int32"]] },
  ros2: { time: [["sec", "int32"], ["nanosec", "uint32"]], duration: [["sec", "int32"], ["nanosec", "uint32"]] },
} as const satisfies Record<string, Record<string, readonly (readonly [string, string])[]>>;
const ROS2_TIME_TYPES: Record<string, string> = { time: "builtin_interfaces/msg/Time", duration: "builtin_interfaces/msg/Duration" };

/**
 * The fields of a ROS `.msg` definition (`ros1msg`, or `ros2msg` when `ros2`), parsed by
 * `@foxglove/rosmsg` with its dependent definitions; constants are not fields.
 */
export function rosMsgFields(text: string, ros2: boolean): SchemaField[] {
  const [root, ...dependencies] = parse(text, { ros2 });
  if (!root) return [];
  const byName = new Map(dependencies.map((definition) => [definition.name, definition]));
  const fields: SchemaField[] = [];
  collect(root, [], { byName, ros2 }, fields);
  return fields;
}

interface Definitions {
  byName: Map<string | undefined, MessageDefinition>;
  ros2: boolean;
}

function collect(definition: MessageDefinition, parent: string[], definitions: Definitions, into: SchemaField[]): void {
  for (const field of definition.definitions) {
    if (field.isConstant === true) continue;
    into.push(fieldAt(parent, field.name, typeName(field, definitions.ros2), canonicalOf(field)));
    if (field.isArray === true || parent.length + 1 >= MAX_FIELD_DEPTH) continue;
    const path = [...parent, field.name];
    const nested = field.isComplex === true ? definitions.byName.get(field.type) : undefined;
    if (nested) collect(nested, path, definitions, into);
    for (const [name, type] of timeParts(field.type, definitions.ros2)) into.push(fieldAt(path, name, type, "number"));
  }
}

function timeParts(type: string, ros2: boolean): readonly (readonly [string, string])[] {
  const parts: Record<string, readonly (readonly [string, string])[]> = ros2 ? TIME_PARTS.ros2 : TIME_PARTS.ros1;
  return parts[type] ?? [];
}

function typeName(field: MessageDefinitionField, ros2: boolean): string {
  const type = (ros2 ? ROS2_TIME_TYPES[field.type] : undefined) ?? field.type;
  return field.isArray === true ? `${type}[${field.arrayLength ?? ""}]` : type;
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
  return field.type === "time" || field.type === "duration" ? "object" : "unknown";
}
