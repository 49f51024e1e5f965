import { create, type DescMessage, type Message } from "@bufbuild/protobuf";
import { NullValue } from "@bufbuild/protobuf/wkt";
import { ApiTokenRecordSchema } from "@hangar/shared/proto/admin";
import {
  DatasetSchema,
  QueryDatasetsResponseSchema,
  UpdateDatasetRequestSchema,
} from "@hangar/shared/proto/data";
import { jsonToMessage } from "./json-to-message";
import { InnerSchema, SinkSchema } from "./kitchen-sink.fixture";
import { fieldValueToJson, messageToJson } from "./message-to-json";
import { readJsonBody } from "./read-json-body";

const sinkWith = (init: Record<string, unknown>): Message => create(SinkSchema, init as never);
const write = (init: Record<string, unknown>): string => messageToJson(SinkSchema, sinkWith(init));
const fieldOf = (json: string, name: string): string => {
  // Fields are written in declaration order and every value is one JSON token or structure,
  // so cutting at the next key of a known field is reliable in these tests.
  const names = SinkSchema.fields.map((f) => f.name);
  const start = json.indexOf(`"${name}":`) + name.length + 3;
  const next = names[names.indexOf(name) + 1];
  return json.slice(start, next === undefined ? -1 : json.indexOf(`,"${next}":`, start));
};
const value = (kind: Record<string, unknown>) => ({ $typeName: "google.protobuf.Value", kind });

describe("messageToJson", () => {
  it("writes every field of an empty message, with defaults and nulls", () => {
    expect(messageToJson(SinkSchema, create(SinkSchema))).toBe(
      "{" +
        '"s":"","b":false,"by":"","d":0,"f":0,"i32":0,"u32":0,"i64":0,"u64":0,"s64":0,"f64":0,"i64s":0,' +
        '"opt_s":null,"opt_i64":null,"opt_color":null,"color":"COLOR_UNSPECIFIED","inner":null,"inners":[],' +
        '"i64_list":[],"colors":[],"counts":{},"by_number":{},"by_flag":{},"meta":{},"val":null,"vals":[],' +
        '"at":null,"took":null,"wrapped":null,"wrapped_i64":null,"mask":null,"nothing":null,"list":null,' +
        '"choice_s":null,"choice_inner":null,"choice_wrapped":null,"metas":[],"values":{},"null_value":null,"times":[]' +
        "}",
    );
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ["s", { s: 'quote " slash \\ nl \n \u2028 \ud800' }, '"quote \\" slash \\\\ nl \\n \u2028 \\ud800"'],
    ["b", { b: true }, "true"],
    ["by", { by: new Uint8Array([251, 255, 0]) }, '"+/8A"'],
    ["d", { d: 0.1 }, "0.1"],
    ["d", { d: 1e21 }, "1e+21"],
    ["d", { d: NaN }, '"NaN"'],
    ["d", { d: Infinity }, '"Infinity"'],
    ["d", { d: -Infinity }, '"-Infinity"'],
    ["i32", { i32: -7 }, "-7"],
    ["u32", { u32: 4294967295 }, "4294967295"],
    ["i64", { i64: 9223372036854775807n }, "9223372036854775807"],
    ["i64", { i64: -9223372036854775808n }, "-9223372036854775808"],
    ["u64", { u64: 18446744073709551615n }, "18446744073709551615"],
    ["i64s", { i64s: "9223372036854775807" }, "9223372036854775807"],
    ["opt_s", { optS: "" }, '""'],
    ["opt_i64", { optI64: 0n }, "0"],
    ["opt_color", { optColor: 0 }, '"COLOR_UNSPECIFIED"'],
    ["color", { color: 2 }, '"GREEN"'],
    ["color", { color: 42 }, "42"],
    ["inner", { inner: { name: "n" } }, '{"name":"n","tags":[],"child":null}'],
    ["inners", { inners: [{ name: "a" }, {}] }, '[{"name":"a","tags":[],"child":null},{"name":"","tags":[],"child":null}]'],
    ["i64_list", { i64List: [1n, 9223372036854775807n] }, "[1,9223372036854775807]"],
    ["colors", { colors: [1, 2] }, '["RED","GREEN"]'],
    ["counts", { counts: { a: 1n, "b\"": 12345678901234567890n } }, '{"a":1,"b\\"":12345678901234567890}'],
    ["by_number", { byNumber: { "7": "seven" } }, '{"7":"seven"}'],
    ["by_flag", { byFlag: { true: { name: "t" } } }, '{"true":{"name":"t","tags":[],"child":null}}'],
    ["meta", { meta: { a: { b: [1, null, "x"] }, n: NaN } }, '{"a":{"b":[1,null,"x"]},"n":null}'],
    ["metas", { metas: [{}, { a: 1 }] }, '[{},{"a":1}]'],
    ["val", { val: value({ case: "nullValue", value: NullValue.NULL_VALUE }) }, "null"],
    ["val", { val: value({ case: "numberValue", value: 1.5 }) }, "1.5"],
    ["val", { val: value({ case: "stringValue", value: "s" }) }, '"s"'],
    [
      "val",
      {
        val: value({
          case: "structValue",
          value: { $typeName: "google.protobuf.Struct", fields: { k: value({ case: "boolValue", value: true }) } },
        }),
      },
      '{"k":true}',
    ],
    ["vals", { vals: [value({ case: "nullValue", value: 0 }), value({ case: undefined })] }, "[null,null]"],
    ["values", { values: { x: value({ case: "listValue", value: { $typeName: "google.protobuf.ListValue", values: [] } }) } }, '{"x":[]}'],
    ["at", { at: { seconds: 1795245375n, nanos: 123_456_789 } }, '"2026-11-21T07:16:15.123Z"'],
    ["at", { at: { seconds: 0n, nanos: 0 } }, '"1970-01-01T00:00:00.000Z"'],
    ["times", { times: [{ seconds: 1n, nanos: 0 }] }, '["1970-01-01T00:00:01.000Z"]'],
    ["took", { took: { seconds: 1n, nanos: 500_000_000 } }, '"1.500s"'],
    ["wrapped", { wrapped: "w" }, '"w"'],
    ["wrapped_i64", { wrappedI64: 9223372036854775807n }, "9223372036854775807"],
    ["mask", { mask: { paths: ["a", "b.c"] } }, '"a,b.c"'],
    ["nothing", { nothing: {} }, "{}"],
    ["list", { list: { values: [value({ case: "boolValue", value: false })] } }, "[false]"],
    ["choice_s", { choice: { case: "choiceS", value: "c" } }, '"c"'],
    ["choice_inner", { choice: { case: "choiceS", value: "c" } }, "null"],
    ["choice_wrapped", { choice: { case: "choiceWrapped", value: { value: 5 } } }, "5"],
    ["null_value", { nullValue: 0 }, "null"],
  ];
  it.each(cases)("writes %s of %j", (name, init, expected) => {
    expect(fieldOf(write(init), name)).toBe(expected);
  });

  it.each(cases)("writes valid JSON for %s of %j", (_name, init) => {
    expect(() => JSON.parse(write(init))).not.toThrow();
  });

  it("round-trips the largest int64 as a bare number", () => {
    const message = jsonToMessage<Message>(SinkSchema, readJsonBody('{"i64": 9223372036854775807, "u64": 18446744073709551615}'));
    const json = messageToJson(SinkSchema, message);
    expect(json).toContain('"i64":9223372036854775807,');
    expect(json).toContain('"u64":18446744073709551615,');
    expect(readJsonBody(json)).toMatchObject({ i64: 9223372036854775807n, u64: 18446744073709551615n });
  });

  it("writes a dataset with every documented field", () => {
    const dataset = create(DatasetSchema, {
      datasetId: "ds_1",
      orgId: "og_1",
      created: { seconds: 1795245375n, nanos: 123_000_000 },
      createdBy: "u",
      name: "n",
      tags: ["t"],
      serviceRecordVersion: 9223372036854775807n,
    });
    expect(JSON.parse(messageToJson(DatasetSchema, dataset))).toEqual({
      dataset_id: "ds_1",
      org_id: "og_1",
      created: "2026-11-21T07:16:15.123Z",
      created_by: "u",
      modified: null,
      modified_by: "",
      name: "n",
      description: null,
      device_id: null,
      metadata: {},
      custom_fields: {},
      tags: ["t"],
      service_record_version: 9223372036854775807,
      administrator: "",
      storage_ctx: {},
      storage_location: "",
    });
  });

  it("writes a page with next_token and total_count present as null", () => {
    const page = create(QueryDatasetsResponseSchema, { items: [] });
    expect(messageToJson(QueryDatasetsResponseSchema, page)).toBe('{"items":[],"next_token":null,"total_count":null}');
  });

  it("writes unset optional Timestamps as null", () => {
    const token = create(ApiTokenRecordSchema, { tokenId: "t", expires: { seconds: 0n, nanos: 0 } });
    expect(JSON.parse(messageToJson(ApiTokenRecordSchema, token))).toMatchObject({ expires: "1970-01-01T00:00:00.000Z", last_used: null, description: null });
  });

  it("writes Value fields of a request: null Value as null, unset as null", () => {
    const request = jsonToMessage<Message>(UpdateDatasetRequestSchema, readJsonBody('{"dataset_id": "d", "name": null, "description": "x"}'));
    expect(JSON.parse(messageToJson(UpdateDatasetRequestSchema, request))).toEqual({
      dataset_id: "d",
      metadata_changeset: null,
      description: "x",
      device_id: null,
      name: null,
      custom_fields_changeset: null,
    });
  });

  it("writes one message object held in several lists in full at each place", () => {
    const shared = create(InnerSchema, { name: "shared", tags: ["a"] } as never);
    const json = write({ inners: [shared, shared], inner: { name: "x", child: shared }, choice: { case: "choiceInner", value: shared } });
    const sharedJson = { name: "shared", tags: ["a"], child: null };
    const parsed = JSON.parse(json);
    expect(parsed.inners).toEqual([sharedJson, sharedJson]);
    expect(parsed.inner.child).toEqual(sharedJson);
    expect(parsed.choice_inner).toEqual(sharedJson);
  });

  it("keeps a map key or Value member named __proto__ as an ordinary member", () => {
    const json = write({ counts: { ["__proto__"]: 1n, b: 2n }, val: value({ case: "structValue", value: { fields: { ["__proto__"]: value({ case: "numberValue", value: 3 }) } } }) });
    expect(fieldOf(json, "counts")).toBe('{"__proto__":1,"b":2}');
    expect(fieldOf(json, "val")).toBe('{"__proto__":3}');
  });

  it("writes 64-bit integers past 2^53 with every digit, in lists and maps too", () => {
    const json = write({ i64List: [9007199254740993n, -9223372036854775808n], counts: { k: 18446744073709551615n } });
    expect(fieldOf(json, "i64_list")).toBe("[9007199254740993,-9223372036854775808]");
    expect(fieldOf(json, "counts")).toBe('{"k":18446744073709551615}');
  });

  it("writes recursive messages", () => {
    const deep = create(InnerSchema, { child: { child: { name: "leaf" } } } as never);
    expect(messageToJson(InnerSchema, deep)).toBe(
      '{"name":"","tags":[],"child":{"name":"","tags":[],"child":{"name":"leaf","tags":[],"child":null}}}',
    );
  });
});

describe("fieldValueToJson", () => {
  const field = (schema: DescMessage, name: string) => schema.fields.find((f) => f.name === name)!;
  const cases: [string, unknown, string][] = [
    ["inners", [{ $typeName: "test.v1.Inner", name: "a", tags: [] }], '[{"name":"a","tags":[],"child":null}]'],
    ["inners", undefined, "[]"],
    ["inner", undefined, "null"],
    ["meta", undefined, "{}"],
    ["i64", 5n, "5"],
    ["opt_s", undefined, "null"],
    ["s", undefined, '""'],
  ];
  it.each(cases)("writes %s = %p", (name, local, expected) => {
    expect(fieldValueToJson(field(SinkSchema, name), local)).toBe(expected);
  });
});
