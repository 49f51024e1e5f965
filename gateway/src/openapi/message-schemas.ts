import { getOption, hasOption, ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { json_inline_oneof, limits as limitsOption } from "@hangar/shared/proto/common";
import { fieldTable } from "../transcode";
import { isStructAsJson, isUnwrappedWrapper, messageForm } from "../transcode/message-form";

/** A JSON Schema (OpenAPI 3.1's dialect) as a plain object. */
export type JsonSchema = Record<string, unknown>;

/** Collects the components the schemas of fields and messages refer to. */
export interface SchemaRegistry {
  /** The schema of a message type as it appears in JSON: a `$ref` to a component, or a well-known type's own form. */
  messageSchema(desc: DescMessage): JsonSchema;
  /** The schema of a field's JSON value, with `null` where the gateway writes null for unset. */
  fieldSchema(field: DescField): JsonSchema;
  /** Every component referred to so far, by name (the message's full protobuf name). */
  components(): Record<string, JsonSchema>;
}

/**
 * Schemas of the gateway's JSON forms, from the same descriptors and the same form rules as its
 * transcoder (message-form.ts, message-to-json.ts): proto field names, 64-bit integers as exact
 * integers, enums by name, Timestamps as date-time strings, Struct as an object, Value as any JSON.
 * A message is a component named by its full name; `required` lists its REQUIRED fields
 * (google.api.field_behavior), and the declared request limits become maxLength and maxItems.
 */
export function createSchemaRegistry(): SchemaRegistry {
  const components = new Map<string, JsonSchema>();
  const registry: SchemaRegistry = {
    messageSchema(desc) {
      const form = wellKnownSchema(desc);
      if (form) return form;
      if (!components.has(desc.typeName)) {
        // Set before filling, so recursive types refer to themselves instead of looping.
        const schema: JsonSchema = {};
        components.set(desc.typeName, schema);
        Object.assign(schema, objectSchema(desc, registry));
      }
      return { $ref: `#/components/schemas/${desc.typeName}` };
    },
    fieldSchema: (field) => fieldSchema(field, registry),
    components: () => Object.fromEntries([...components].sort(([a], [b]) => a.localeCompare(b))),
  };
  return registry;
}

function objectSchema(desc: DescMessage, registry: SchemaRegistry): JsonSchema {
  // Written as the selected member alone (message-to-json.ts), so described as one of the members.
  if (hasOption(desc, json_inline_oneof) && getOption(desc, json_inline_oneof)) {
    return { oneOf: desc.fields.map((field) => registry.fieldSchema(field)) };
  }
  const properties = Object.fromEntries(desc.fields.map((field) => [field.name, registry.fieldSchema(field)]));
  const required = fieldTable(desc).required.map((field) => field.name);
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

function fieldSchema(field: DescField, registry: SchemaRegistry): JsonSchema {
  const limits = hasOption(field, limitsOption) ? getOption(field, limitsOption) : undefined;
  switch (field.fieldKind) {
    case "list":
      return { type: "array", items: elementSchema(field, registry, limits?.maxLen), ...(limits?.maxItems ? { maxItems: limits.maxItems } : {}) };
    case "map":
      return { type: "object", additionalProperties: elementSchema(field, registry, limits?.maxLen), ...(limits?.maxItems ? { maxProperties: limits.maxItems } : {}) };
    default: {
      const schema = elementSchema(field, registry, limits?.maxLen);
      return nullableUnlessSet(field) ? nullable(schema) : schema;
    }
  }
}

/** One value of the field (an item of a list, a value of a map, or the singular value). */
function elementSchema(field: DescField, registry: SchemaRegistry, maxLen: number | undefined): JsonSchema {
  if (field.scalar !== undefined) {
    const schema = scalarSchema(field.scalar);
    return maxLen && field.scalar === ScalarType.STRING ? { ...schema, maxLength: maxLen } : schema;
  }
  if (field.enum !== undefined) return enumSchema(field.enum);
  if (isStructAsJson(field)) return { type: "object" };
  if (isUnwrappedWrapper(field)) return scalarSchema(field.message!.fields[0]!.scalar!);
  return registry.messageSchema(field.message!);
}

/** Fields the gateway writes as null when unset: explicit presence (proto3 `optional`), messages, oneof members. */
function nullableUnlessSet(field: DescField): boolean {
  if (field.oneof !== undefined) return true;
  if (field.fieldKind === "message") return !isStructAsJson(field) && !(field.message.typeName === "google.protobuf.Value");
  return field.presence !== FeatureSet_FieldPresence.IMPLICIT;
}

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === "string") return { ...schema, type: [schema.type, "null"] };
  return { anyOf: [schema, { type: "null" }] };
}

function scalarSchema(scalar: ScalarType): JsonSchema {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    case ScalarType.DOUBLE:
      return { type: "number", format: "double" };
    case ScalarType.FLOAT:
      return { type: "number", format: "float" };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      // Written as exact JSON numbers, never strings (the gateway's contract for documented integers).
      return { type: "integer", format: "int64" };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: "integer", format: "int64", minimum: 0 };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: "integer", format: "int32", minimum: 0 };
    default:
      return { type: "integer", format: "int32" };
  }
}

function enumSchema(desc: DescEnum): JsonSchema {
  if (desc.typeName === "google.protobuf.NullValue") return { type: "null" };
  return { type: "string", enum: desc.values.map((value) => value.name) };
}

/** The JSON forms of the well-known types (message-form.ts); undefined for a plain message. */
function wellKnownSchema(desc: DescMessage): JsonSchema | undefined {
  switch (messageForm(desc)) {
    case "timestamp":
      return { type: "string", format: "date-time" };
    case "duration":
      return { type: "string", pattern: "^-?[0-9]+(\\.[0-9]+)?s$", description: "seconds with an `s` suffix, such as `1.5s`" };
    case "value":
      return {};
    case "struct":
      return { type: "object" };
    case "list_value":
      return { type: "array" };
    case "field_mask":
      return { type: "string", description: "comma-separated field paths" };
    case "wrapper":
      return scalarSchema(desc.fields[0]!.scalar!);
    case "time_value":
      return { type: ["integer", "number", "string", "null"], description: "nanoseconds since the Unix epoch (integer), seconds (number or numeric text), or ISO 8601 text" };
    case "message":
      return undefined;
  }
}
