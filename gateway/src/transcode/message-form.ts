import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";

/**
 * How the gateway's JSON represents a message type: the well-known types with a custom JSON form,
 * the wrappers (their scalar), or `"message"` for a plain object of fields.
 */
export type MessageForm =
  | "timestamp"
  | "duration"
  | "value"
  | "struct"
  | "list_value"
  | "field_mask"
  | "wrapper"
  | "time_value"
  | "message";

/** Classifies a message type by its JSON form. */
export function messageForm(desc: DescMessage): MessageForm {
  switch (desc.typeName) {
    case "google.protobuf.Timestamp":
      return "timestamp";
    case "google.protobuf.Duration":
      return "duration";
    case "google.protobuf.Value":
      return "value";
    case "google.protobuf.Struct":
      return "struct";
    case "google.protobuf.ListValue":
      return "list_value";
    case "google.protobuf.FieldMask":
      return "field_mask";
    case "hangar.common.v1.TimeValue":
      return "time_value";
    default:
      return isWrapperDesc(desc) ? "wrapper" : "message";
  }
}

/** Shared with the services' page size bound (`protobufSizeBound`), which walks the same local forms. */
export { isStructAsJson } from "@hangar/shared";

/** True when protobuf-es stores this field's wrapper message as the bare scalar (singular, outside a oneof). */
export function isUnwrappedWrapper(field: DescField): boolean {
  return field.fieldKind === "message" && field.oneof === undefined && isWrapperDesc(field.message);
}
