import { jsonSchemaFields } from "./json-schema";
import { protobufFields } from "./protobuf";
import { rosMsgFields } from "./ros-msg";
import type { SchemaField } from "./field";

export type { CanonicalDataType, SchemaField } from "./field";

const text = new TextDecoder("utf-8", { fatal: true });

/**
 * The fields (message paths) a channel's schema declares, by schema encoding: `jsonschema`,
 * `ros2msg`, `ros1msg` and `protobuf`. Any other encoding, or a channel without a schema, has no
 * known fields and yields an empty list; a schema of a known encoding that does not parse throws.
 */
export function schemaFields(encoding: string, name: string, data: Uint8Array): SchemaField[] {
  switch (encoding) {
    case "jsonschema":
      return jsonSchemaFields(text.decode(data));
    case "ros2msg":
      return rosMsgFields(text.decode(data), true);
    case "ros1msg":
      return rosMsgFields(text.decode(data), false);
    case "protobuf":
      return protobufFields(name, data);
    default:
      return [];
  }
}
