import { create, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { schemaFields } from "./index";

const encode = (text: string) => new TextEncoder().encode(text);
const rows = (fields: ReturnType<typeof schemaFields>) => fields.map((field) => [field.path.join("."), field.data_type, field.canonical_data_type]);

describe("schemaFields", () => {
  test("ROS 1: time and duration are objects of sec and nsec, char and byte are its uint8 and int8 aliases, an Image field is an image, constants are skipped", () => {
    const definition = `Header header
sensor_msgs/Image frame
duration elapsed
char grade
byte flags
bool[] switches
uint8 MODE=3
================================================================================
MSG: std_msgs/Header
uint32 seq
time stamp
string frame_id
================================================================================
MSG: sensor_msgs/Image
uint32 height
uint8[] data
`;
    expect(rows(schemaFields("ros1msg", "demo/Frame", encode(definition)))).toEqual([
      ["header", "std_msgs/Header", "object"],
      ["header.seq", "uint32", "number"],
      ["header.stamp", "time", "object"],
      ["header.stamp.sec", "uint32", "number"],
      ["header.stamp.nsec", "uint32", "number"],
      ["header.frame_id", "string", "string"],
      ["frame", "sensor_msgs/Image", "image"],
      ["frame.height", "uint32", "number"],
      ["frame.data", "uint8[]", "array"],
      ["elapsed", "duration", "object"],
      ["elapsed.sec", "int32", "number"],
      ["elapsed.nsec", "int32", "number"],
      ["grade", "uint8", "number"],
      ["flags", "int8", "number"],
      ["switches", "bool[]", "array"],
    ]);
  });

  test("JSON Schema: a $ref cycle stops at the depth limit instead of looping", () => {
    const schema = { type: "object", properties: { node: { $ref: "#/$defs/Node" } }, $defs: { Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } } } };
    const fields = schemaFields("jsonschema", "Node", encode(JSON.stringify(schema)));
    expect(fields.length).toBe(16);
    expect(fields.at(-1)!.path).toEqual(["node", ...Array<string>(15).fill("next")]);
  });

  test("JSON Schema: a property of unknown type is unknown, a foxglove image reference is an image", () => {
    const schema = { type: "object", properties: { anything: {}, picture: { $ref: "#/definitions/foxglove.CompressedImage" } }, definitions: { "foxglove.CompressedImage": { type: "object", properties: { format: { type: "string" } } } } };
    expect(rows(schemaFields("jsonschema", "Shot", encode(JSON.stringify(schema))))).toEqual([
      ["anything", "unknown", "unknown"],
      ["picture", "object", "image"],
      ["picture.format", "string", "string"],
    ]);
  });

  test("protobuf: enums are numbers, maps are objects, a recursive type is descended once", () => {
    const set = create(FileDescriptorSetSchema, {
      file: [
        {
          name: "tree.proto",
          package: "t",
          syntax: "proto3",
          enumType: [{ name: "Kind", value: [{ name: "KIND_UNSPECIFIED", number: 0 }] }],
          messageType: [
            {
              name: "Tree",
              field: [
                { name: "kind", number: 1, type: 14, label: 1, typeName: ".t.Kind", jsonName: "kind" },
                { name: "children", number: 2, type: 11, label: 3, typeName: ".t.Tree", jsonName: "children" },
                { name: "parent", number: 3, type: 11, label: 1, typeName: ".t.Tree", jsonName: "parent" },
                { name: "labels", number: 4, type: 11, label: 3, typeName: ".t.Tree.LabelsEntry", jsonName: "labels" },
              ],
              nestedType: [
                {
                  name: "LabelsEntry",
                  options: { mapEntry: true },
                  field: [
                    { name: "key", number: 1, type: 9, label: 1, jsonName: "key" },
                    { name: "value", number: 2, type: 5, label: 1, jsonName: "value" },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(rows(schemaFields("protobuf", "t.Tree", toBinary(FileDescriptorSetSchema, set)))).toEqual([
      ["kind", "t.Kind", "number"],
      ["children", "t.Tree[]", "array"],
      ["parent", "t.Tree", "object"],
      ["labels", "map<string, int32>", "object"],
    ]);
  });

  test("an encoding it does not know has no fields; a malformed schema of a known one throws", () => {
    expect(schemaFields("ros2idl", "x", encode("module x {};"))).toEqual([]);
    expect(() => schemaFields("jsonschema", "x", encode("{not json"))).toThrow();
    expect(() => schemaFields("protobuf", "missing.Type", new Uint8Array())).toThrow("the FileDescriptorSet does not define missing.Type");
  });
});
