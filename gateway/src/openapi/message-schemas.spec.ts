import { ReqSchema, SinkSchema } from "../transcode/kitchen-sink.fixture";
import { createSchemaRegistry, type JsonSchema } from "./message-schemas";

// The schema of every field kind the transcoder handles (the kitchen-sink message), against the
// JSON form message-to-json.ts writes for it.

const registry = createSchemaRegistry();
const sinkRef = registry.messageSchema(SinkSchema);
const components = registry.components();
const sink = components["test.v1.Sink"]!;
const property = (name: string): JsonSchema => (sink.properties as Record<string, JsonSchema>)[name]!;

test("a message is a component referred to by its full name, its properties its proto field names", () => {
  expect(sinkRef).toEqual({ $ref: "#/components/schemas/test.v1.Sink" });
  expect(Object.keys(sink.properties as object)).toEqual(SinkSchema.fields.map((f) => f.name));
  // Recursive types refer to themselves.
  expect((components["test.v1.Inner"]!.properties as Record<string, JsonSchema>).child).toEqual({
    anyOf: [{ $ref: "#/components/schemas/test.v1.Inner" }, { type: "null" }],
  });
});

test.each<[string, JsonSchema]>([
  ["s", { type: "string" }],
  ["b", { type: "boolean" }],
  ["by", { type: "string", contentEncoding: "base64" }],
  ["d", { type: "number", format: "double" }],
  ["i32", { type: "integer", format: "int32" }],
  ["u32", { type: "integer", format: "int32", minimum: 0 }],
  ["i64", { type: "integer", format: "int64" }],
  ["u64", { type: "integer", format: "int64", minimum: 0 }],
  ["opt_s", { type: ["string", "null"] }],
  ["opt_i64", { type: ["integer", "null"], format: "int64" }],
  ["color", { type: "string", enum: ["COLOR_UNSPECIFIED", "RED", "GREEN"] }],
  ["opt_color", { type: ["string", "null"], enum: ["COLOR_UNSPECIFIED", "RED", "GREEN"] }],
  ["colors", { type: "array", items: { type: "string", enum: ["COLOR_UNSPECIFIED", "RED", "GREEN"] } }],
  ["i64_list", { type: "array", items: { type: "integer", format: "int64" } }],
  ["counts", { type: "object", additionalProperties: { type: "integer", format: "int64" } }],
  ["meta", { type: "object" }],
  ["val", {}],
  ["list", { type: ["array", "null"] }],
  ["at", { type: ["string", "null"], format: "date-time" }],
  ["times", { type: "array", items: { type: "string", format: "date-time" } }],
  ["wrapped", { type: ["string", "null"] }],
  ["wrapped_i64", { type: ["integer", "null"], format: "int64" }],
  ["choice_s", { type: ["string", "null"] }],
  ["null_value", { type: "null" }],
])("%s", (name, schema) => {
  expect(property(name)).toEqual(schema);
});

test("REQUIRED fields (google.api.field_behavior) are the component's required list", () => {
  registry.messageSchema(ReqSchema);
  expect(registry.components()["test.v1.Req"]!.required).toEqual(["id", "v"]);
  expect(sink.required).toBeUndefined();
});
