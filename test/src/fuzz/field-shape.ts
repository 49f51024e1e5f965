import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";

/**
 * How a field looks on the wire, which decides the mutations it gets: `text` is a JSON string with
 * a format (Timestamp, Duration, FieldMask), `map` a JSON object of entries (a map or a Struct),
 * `value` any JSON (google.protobuf.Value), `object` a message of fields.
 */
export type FieldShape = "string" | "bytes" | "integer" | "float" | "bool" | "enum" | "text" | "object" | "map" | "value" | "list";

const integers = new Set([
  ScalarType.INT32,
  ScalarType.SINT32,
  ScalarType.SFIXED32,
  ScalarType.UINT32,
  ScalarType.FIXED32,
  ScalarType.INT64,
  ScalarType.SINT64,
  ScalarType.SFIXED64,
  ScalarType.UINT64,
  ScalarType.FIXED64,
]);

/** The shape of a field as a whole: a repeated field is a `list`, whatever its elements. */
export function shapeOf(field: DescField): FieldShape {
  if (field.fieldKind === "list") return "list";
  if (field.fieldKind === "map") return "map";
  return elementShape(field);
}

/** The shape of one element of a field: the field itself when singular, an item of a list, a value of a map. */
export function elementShape(field: DescField): FieldShape {
  if (field.scalar !== undefined) return scalarShape(field.scalar);
  if (field.enum !== undefined) return "enum";
  return messageShape(field.message!);
}

/** The shape of a message type: the well-known types have JSON forms of their own. */
export function messageShape(desc: DescMessage): FieldShape {
  switch (desc.typeName) {
    case "google.protobuf.Timestamp":
    case "google.protobuf.Duration":
    case "google.protobuf.FieldMask":
      return "text";
    case "google.protobuf.Struct":
      return "map";
    case "google.protobuf.ListValue":
      return "list";
    case "google.protobuf.Value":
      return "value";
    default:
      // A wrapper (google.protobuf.StringValue...) is its scalar on the wire.
      return isWrapperDesc(desc) ? scalarShape(desc.fields[0]!.scalar!) : "object";
  }
}

function scalarShape(type: ScalarType): FieldShape {
  if (integers.has(type)) return "integer";
  switch (type) {
    case ScalarType.STRING:
      return "string";
    case ScalarType.BYTES:
      return "bytes";
    case ScalarType.BOOL:
      return "bool";
    default:
      return "float";
  }
}

/** A well-formed JSON value of a shape, used where a request needs one the fuzzer is not mutating. */
export function plainValue(shape: FieldShape, field: DescField): unknown {
  switch (shape) {
    case "string":
      return "fuzz";
    case "bytes":
      return "ZnV6eg==";
    case "integer":
    case "float":
      return 1;
    case "bool":
      return false;
    case "enum": {
      const values = field.enum!.values;
      return (values.find((v) => v.number !== 0) ?? values[0]!).name;
    }
    case "text":
      return textValue(field.message!.typeName);
    case "object":
    case "map":
      return {};
    case "value":
      return "fuzz";
    case "list":
      return [];
  }
}

function textValue(typeName: string): string {
  if (typeName === "google.protobuf.Timestamp") return "2026-01-01T00:00:00Z";
  if (typeName === "google.protobuf.Duration") return "1s";
  return "";
}
