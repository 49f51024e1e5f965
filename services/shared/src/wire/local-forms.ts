import type { DescField } from "@bufbuild/protobuf";

/** True when protobuf-es stores this field's google.protobuf.Struct values as plain JsonObject (any field but a Value's). */
export function isStructAsJson(field: DescField): boolean {
  return field.message?.typeName === "google.protobuf.Struct" && field.parent.typeName !== "google.protobuf.Value";
}
