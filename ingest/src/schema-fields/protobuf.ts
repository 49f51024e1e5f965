import { createFileRegistry, fromBinary, ScalarType } from "@bufbuild/protobuf";
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { fieldAt, isImageType, MAX_FIELD_DEPTH } from "./field";
import type { CanonicalDataType, SchemaField } from "./field";

const NUMBER_SCALARS = new Set([
  ScalarType.DOUBLE, ScalarType.FLOAT, ScalarType.INT64, ScalarType.UINT64, ScalarType.INT32, ScalarType.FIXED64,
  ScalarType.FIXED32, ScalarType.UINT32, ScalarType.SFIXED32, ScalarType.SFIXED64, ScalarType.SINT32, ScalarType.SINT64,
]);

/**
 * The fields of a protobuf message (`protobuf` encoding: the schema data is a binary
 * FileDescriptorSet, the schema name the message's full name). Message fields are objects and
 * are descended into, except into a type already on the path (recursive types such as
 * google.protobuf.Struct); enums are numbers, as decoders return them.
 */
export function protobufFields(messageName: string, data: Uint8Array): SchemaField[] {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, data));
  const message = registry.getMessage(messageName);
  if (!message) throw new Error(`the FileDescriptorSet does not define ${messageName.slice(0, 200)}`);
  const fields: SchemaField[] = [];
  collect(message, [], [message.typeName], fields);
  return fields;
}

function collect(message: DescMessage, parent: string[], seen: string[], into: SchemaField[]): void {
  for (const field of message.fields) {
    into.push(fieldAt(parent, field.name, typeName(field), canonicalOf(field)));
    if (field.fieldKind !== "message" || parent.length + 1 >= MAX_FIELD_DEPTH || seen.includes(field.message.typeName)) continue;
    collect(field.message, [...parent, field.name], [...seen, field.message.typeName], into);
  }
}

function typeName(field: DescField): string {
  switch (field.fieldKind) {
    case "scalar":
      return scalarName(field.scalar);
    case "enum":
      return field.enum.typeName;
    case "message":
      return field.message.typeName;
    case "list":
      return `${field.listKind === "scalar" ? scalarName(field.scalar) : field.listKind === "enum" ? field.enum.typeName : field.message.typeName}[]`;
    case "map":
      return `map<${scalarName(field.mapKey)}, ${field.mapKind === "scalar" ? scalarName(field.scalar) : field.mapKind === "enum" ? field.enum.typeName : field.message.typeName}>`;
  }
}

function canonicalOf(field: DescField): CanonicalDataType {
  switch (field.fieldKind) {
    case "scalar":
      return scalarCanonical(field.scalar);
    case "enum":
      return "number";
    case "message":
      return isImageType(field.message.typeName) ? "image" : "object";
    case "list":
      return field.listKind === "scalar" && NUMBER_SCALARS.has(field.scalar) ? "number_array" : "array";
    case "map":
      return "object";
  }
}

function scalarCanonical(scalar: ScalarType): CanonicalDataType {
  if (NUMBER_SCALARS.has(scalar)) return "number";
  if (scalar === ScalarType.BOOL) return "boolean";
  if (scalar === ScalarType.STRING) return "string";
  return "array"; // bytes: a blob, as uint8[] is for ROS
}

function scalarName(scalar: ScalarType): string {
  return ScalarType[scalar].toLowerCase();
}
