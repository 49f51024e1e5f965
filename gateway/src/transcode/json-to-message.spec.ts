import { create, type Message } from "@bufbuild/protobuf";
import { NullValue } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  CreateDatasetIfNotExistsRequestSchema,
  UpdateDatasetRequestSchema,
  type UpdateDatasetRequest,
} from "@hangar/shared/proto/data";
import { jsonToMessage, setFieldFromJson } from "./json-to-message";
import { InnerSchema, ReqSchema, SinkSchema } from "./kitchen-sink.fixture";
import { readJsonBody } from "./read-json-body";

type Local = Record<string, unknown>;

const sink = (json: string): Local => jsonToMessage<Message>(SinkSchema, readJsonBody(json)) as unknown as Local;

function errorOf(run: () => unknown): ConnectError {
  try {
    run();
  } catch (e) {
    if (e instanceof ConnectError) return e;
    throw e;
  }
  throw new Error("expected a ConnectError");
}

const value = (kind: Local) => ({ $typeName: "google.protobuf.Value", kind });
const inner = (init: Local) => create(InnerSchema, init);

describe("jsonToMessage: accepted values", () => {
  const cases: [string, string, unknown][] = [
    ['{"s": "x"}', "s", "x"],
    ['{"b": true}', "b", true],
    ['{"by": "aGk="}', "by", new Uint8Array([104, 105])],
    ['{"by": "-_8"}', "by", new Uint8Array([251, 255])],
    ['{"d": 1.5}', "d", 1.5],
    ['{"d": "NaN"}', "d", NaN],
    ['{"d": "-Infinity"}', "d", -Infinity],
    ['{"d": "2.5e3"}', "d", 2500],
    ['{"d": 12345678901234567890}', "d", 12345678901234567890],
    ['{"f": 3.4e38}', "f", 3.4e38],
    ['{"i32": -2147483648}', "i32", -2147483648],
    ['{"i32": "42"}', "i32", 42],
    ['{"i32": 1e3}', "i32", 1000],
    ['{"i32": 7.0}', "i32", 7],
    ['{"u32": 4294967295}', "u32", 4294967295],
    ['{"i64": 9223372036854775807}', "i64", 9223372036854775807n],
    ['{"i64": -9223372036854775808}', "i64", -9223372036854775808n],
    ['{"i64": "9223372036854775807"}', "i64", 9223372036854775807n],
    ['{"i64": 3}', "i64", 3n],
    ['{"u64": 18446744073709551615}', "u64", 18446744073709551615n],
    ['{"s64": -5}', "s64", -5n],
    ['{"f64": 5}', "f64", 5n],
    ['{"i64s": 9223372036854775807}', "i64s", "9223372036854775807"],
    ['{"opt_s": ""}', "optS", ""],
    ['{"optS": "camel"}', "optS", "camel"],
    ['{"opt_i64": 0}', "optI64", 0n],
    ['{"opt_color": "GREEN"}', "optColor", 2],
    ['{"color": 1}', "color", 1],
    ['{"color": "COLOR_UNSPECIFIED"}', "color", 0],
    ['{"inner": {"name": "n", "tags": ["a"]}}', "inner", inner({ name: "n", tags: ["a"] })],
    ['{"inner": {"child": {"name": "deep"}}}', "inner", inner({ child: inner({ name: "deep" }) })],
    ['{"inners": [{"name": "a"}, {}]}', "inners", [inner({ name: "a" }), inner({})]],
    ['{"i64_list": [1, "2", 9223372036854775807]}', "i64List", [1n, 2n, 9223372036854775807n]],
    ['{"colors": ["RED", 2]}', "colors", [1, 2]],
    ['{"counts": {"a": 1, "b": "2"}}', "counts", { a: 1n, b: 2n }],
    ['{"by_number": {"7": "seven", "-1": "minus"}}', "byNumber", { "7": "seven", "-1": "minus" }],
    ['{"by_flag": {"true": {"name": "t"}}}', "byFlag", { true: inner({ name: "t" }) }],
    ['{"meta": {"a": {"b": [1, null, "x"]}, "big": 12345678901234567890}}', "meta", { a: { b: [1, null, "x"] }, big: 12345678901234567890 }],
    ['{"meta": {}}', "meta", {}],
    ['{"metas": [{"a": 1}, {}]}', "metas", [{ a: 1 }, {}]],
    ['{"val": "s"}', "val", value({ case: "stringValue", value: "s" })],
    ['{"val": 2}', "val", value({ case: "numberValue", value: 2 })],
    ['{"val": false}', "val", value({ case: "boolValue", value: false })],
    ['{"val": null}', "val", value({ case: "nullValue", value: NullValue.NULL_VALUE })],
    [
      '{"val": {"k": [true]}}',
      "val",
      value({
        case: "structValue",
        value: {
          $typeName: "google.protobuf.Struct",
          fields: { k: value({ case: "listValue", value: { $typeName: "google.protobuf.ListValue", values: [value({ case: "boolValue", value: true })] } }) },
        },
      }),
    ],
    ['{"vals": [null, 1]}', "vals", [value({ case: "nullValue", value: 0 }), value({ case: "numberValue", value: 1 })]],
    ['{"values": {"x": null}}', "values", { x: value({ case: "nullValue", value: 0 }) }],
    ['{"list": [1]}', "list", { $typeName: "google.protobuf.ListValue", values: [value({ case: "numberValue", value: 1 })] }],
    ['{"at": "2026-11-21T07:16:15.123Z"}', "at", { $typeName: "google.protobuf.Timestamp", seconds: 1795245375n, nanos: 123_000_000 }],
    ['{"at": "2026-11-21"}', "at", { $typeName: "google.protobuf.Timestamp", seconds: 1795219200n, nanos: 0 }],
    ['{"times": ["1970-01-01T00:00:01Z"]}', "times", [{ $typeName: "google.protobuf.Timestamp", seconds: 1n, nanos: 0 }]],
    ['{"took": "1.5s"}', "took", { $typeName: "google.protobuf.Duration", seconds: 1n, nanos: 500_000_000 }],
    ['{"wrapped": "w"}', "wrapped", "w"],
    ['{"wrapped_i64": 9223372036854775807}', "wrappedI64", 9223372036854775807n],
    ['{"mask": "name,innerChild.fooBar"}', "mask", { $typeName: "google.protobuf.FieldMask", paths: ["name", "inner_child.foo_bar"] }],
    ['{"mask": ""}', "mask", { $typeName: "google.protobuf.FieldMask", paths: [] }],
    ['{"nothing": {}}', "nothing", { $typeName: "google.protobuf.Empty" }],
    ['{"choice_s": "c"}', "choice", { case: "choiceS", value: "c" }],
    ['{"choice_inner": {"name": "i"}}', "choice", { case: "choiceInner", value: inner({ name: "i" }) }],
    ['{"choice_wrapped": 5}', "choice", { case: "choiceWrapped", value: { $typeName: "google.protobuf.Int32Value", value: 5 } }],
    ['{"choice_s": null, "choice_wrapped": 5}', "choice", { case: "choiceWrapped", value: { $typeName: "google.protobuf.Int32Value", value: 5 } }],
    ['{"null_value": null}', "nullValue", 0],
  ];
  it.each(cases)("%s sets %s", (json, localName, expected) => {
    expect(sink(json)[localName]).toEqual(expected);
  });
});

describe("jsonToMessage: null and absent", () => {
  const cases: [string, string, unknown][] = [
    ['{"s": null}', "s", ""],
    ['{"i64": null}', "i64", 0n],
    ['{"opt_s": null}', "optS", undefined],
    ['{"inner": null}', "inner", undefined],
    ['{"inners": null}', "inners", []],
    ['{"counts": null}', "counts", {}],
    ['{"meta": null}', "meta", undefined],
    ['{"at": null}', "at", undefined],
    ['{"wrapped": null}', "wrapped", undefined],
    ['{"choice_s": null}', "choice", { case: undefined }],
    ["{}", "val", undefined],
  ];
  it.each(cases)("%s leaves %s unset", (json, localName, expected) => {
    expect(sink(json)[localName]).toEqual(expected);
  });

  it("tells an explicit null (clear) from an absent field (unchanged) in update requests", () => {
    const request = jsonToMessage<UpdateDatasetRequest>(
      UpdateDatasetRequestSchema,
      readJsonBody('{"dataset_id": "ds_1", "description": null, "name": "new"}'),
    );
    expect(request.description).toEqual(value({ case: "nullValue", value: NullValue.NULL_VALUE }));
    expect(request.name).toEqual(value({ case: "stringValue", value: "new" }));
    expect(request.deviceId).toBeUndefined();
  });

  it("reads every key sent as null, as clients sending full models do", () => {
    const json = Object.fromEntries(SinkSchema.fields.map((f) => [f.name, null]));
    const message = jsonToMessage<Message>(SinkSchema, json) as unknown as Local;
    expect(message).toEqual({ ...create(SinkSchema), val: value({ case: "nullValue", value: 0 }) });
  });

  it.each([undefined, null])("reads a %s body as an empty message", (json) => {
    expect(jsonToMessage(SinkSchema, json)).toEqual(create(SinkSchema));
  });
});

describe("jsonToMessage: rejected values", () => {
  const cases: [string, string][] = [
    ['{"s": 1}', "s: expected string"],
    ['{"b": "true"}', "b: expected boolean"],
    ['{"b": 1}', "b: expected boolean"],
    ['{"by": "not base64!"}', "by: expected base64 string"],
    ['{"by": "a"}', "by: expected base64 string"],
    ['{"d": "1.5x"}', "d: expected number"],
    ['{"d": true}', "d: expected number"],
    ['{"f": 1e39}', "f: out of range for float"],
    ['{"i32": 1.5}', "i32: expected integer"],
    ['{"i32": "1.0"}', "i32: expected integer"],
    ['{"i32": 2147483648}', "i32: out of range for int32"],
    ['{"u32": -1}', "u32: out of range for uint32"],
    ['{"i64": 9223372036854775808}', "i64: out of range for int64"],
    ['{"i64": "12a"}', "i64: expected integer"],
    ['{"i64": true}', "i64: expected integer"],
    ['{"u64": -1}', "u64: out of range for uint64"],
    ['{"u64": 18446744073709551616}', "u64: out of range for uint64"],
    ['{"color": "BLUE"}', "color: expected one of COLOR_UNSPECIFIED, RED, GREEN"],
    ['{"color": 9}', "color: expected one of COLOR_UNSPECIFIED, RED, GREEN"],
    ['{"color": "red"}', "color: expected one of COLOR_UNSPECIFIED, RED, GREEN"],
    ['{"inner": "x"}', "inner: expected object"],
    ['{"inner": []}', "inner: expected object"],
    ['{"inner": {"child": {"tags": ["a", 2]}}}', "inner.child.tags[1]: expected string"],
    ['{"inners": {}}', "inners: expected array"],
    ['{"inners": [{}, {"name": 5}]}', "inners[1].name: expected string"],
    ['{"inners": [null]}', "inners[0]: expected object"],
    ['{"i64_list": [1, null]}', "i64_list[1]: expected integer"],
    ['{"counts": []}', "counts: expected object"],
    ['{"counts": {"a": "x"}}', 'counts["a"]: expected integer'],
    ['{"by_number": {"seven": "x"}}', 'by_number["seven"]: expected integer'],
    ['{"by_flag": {"yes": {}}}', 'by_flag["yes"]: expected map key true or false'],
    ['{"meta": [1]}', "meta: expected object"],
    ['{"meta": "x"}', "meta: expected object"],
    ['{"metas": [1]}', "metas[0]: expected object"],
    ['{"at": "2026-11-21T07:16:15"}', "at: expected an ISO 8601 date-time with a timezone, or a date"],
    ['{"at": 1795245375}', "at: expected an ISO 8601 date-time with a timezone, or a date"],
    ['{"took": 5}', 'took: expected a duration such as "1.5s"'],
    ['{"wrapped": 5}', "wrapped: expected string"],
    ['{"mask": ["a"]}', "mask: expected string"],
    ['{"list": {}}', "list: expected array"],
    ['{"choice_s": "c", "choice_inner": {}}', "choice_inner: cannot be set together with choice_s"],
    ['{"null_value": 3}', "null_value: expected one of NULL_VALUE"],
    ['{"s": "a\\ud800"}', "s: must not contain a lone UTF-16 surrogate"],
    ['{"meta": {"\\udc00": 1}}', 'meta["\\udc00"]: must not contain a lone UTF-16 surrogate'],
    ['{"d": 1e400}', "d: out of range for double"],
    ['{"d": "-1e400"}', "d: out of range for double"],
    ['{"i32": 1e400}', "i32: out of range for int32"],
    ['{"u64": 100000000000000000000000}', "u64: out of range for uint64"],
    ['{"val": 1e400}', "val: number out of range"],
    ['{"vals": [1, {"a": [-1e400]}]}', 'vals[1]["a"][0]: number out of range'],
    ['{"meta": {"a": {"b": 1e400}}}', 'meta["a"]["b"]: number out of range'],
    ['{"list": [1e400]}', "list[0]: number out of range"],
  ];
  it.each(cases)("%s is a 400: %s", (json, message) => {
    const error = errorOf(() => sink(json));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toBe(message);
  });

  it("refuses a MiB of digits, quoted or not, as out of range", () => {
    const digits = "9".repeat(1 << 20);
    expect(errorOf(() => sink(`{"i64": "${digits}"}`)).rawMessage).toBe("i64: out of range for int64");
    expect(errorOf(() => sink(`{"i64": ${digits}}`)).rawMessage).toBe("i64: out of range for int64");
  });

  it("names the nested path of a generated request", () => {
    const error = errorOf(() =>
      jsonToMessage(UpdateDatasetRequestSchema, readJsonBody('{"dataset_id": "d", "metadata_changeset": {"put_tags": ["a", "b", 3]}}')),
    );
    expect(error.rawMessage).toBe("metadata_changeset.put_tags[2]: expected string");
  });

  it("prefixes paths with pathPrefix", () => {
    expect(errorOf(() => jsonToMessage(InnerSchema, { name: 1 }, "query")).rawMessage).toBe("query.name: expected string");
    expect(errorOf(() => jsonToMessage(InnerSchema, [], "query")).rawMessage).toBe("query: expected object");
  });

  it.each(["[]", '"x"', "3"])("refuses a top-level %s", (json) => {
    const error = errorOf(() => jsonToMessage(SinkSchema, readJsonBody(json)));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toBe("request body must be a JSON object");
  });
});

describe("jsonToMessage: unknown keys", () => {
  it("ignores keys the schema does not know, with any value", () => {
    const message = sink('{"s": "x", "future_field": {"deep": [1, 2]}, "other": 12345678901234567890}');
    expect(message).toEqual({ ...create(SinkSchema), s: "x" });
  });

  it("does not let a __proto__ key reach a prototype", () => {
    const message = sink('{"__proto__": {"s": "polluted"}, "meta": {"__proto__": {"x": 1}}}');
    expect(message.s).toBe("");
    const meta = message.meta as Local;
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
    expect(Object.keys(meta)).toEqual(["__proto__"]);
  });
});

describe("jsonToMessage: required fields", () => {
  const cases: [string, string | undefined][] = [
    ['{"id": "a", "v": 1}', undefined],
    ['{"id": "", "v": null}', undefined],
    ['{"v": 1}', "id: is required"],
    ['{"id": null, "v": 1}', "id: is required"],
    ['{"id": "a"}', "v: is required"],
    ['{"id": "a", "v": 1, "inner": {}}', "inner.name: is required"],
    ['{"id": "a", "v": 1, "inner": {"name": null}}', "inner.name: is required"],
    ['{"id": "a", "v": 1, "inner": {"name": "n"}}', undefined],
    ['{"id": "a", "v": 1, "inner": null}', undefined],
  ];
  it.each(cases)("%s: %s", (json, message) => {
    const run = () => jsonToMessage(ReqSchema, readJsonBody(json));
    if (message === undefined) expect(run).not.toThrow();
    else expect(errorOf(run).rawMessage).toBe(message);
  });

  it("skips required fields the caller fills from the path", () => {
    expect(() => jsonToMessage(ReqSchema, { v: 1 }, "", { provided: new Set(["id"]) })).not.toThrow();
  });

  it("checks a required message field of a generated request", () => {
    const error = errorOf(() => jsonToMessage(CreateDatasetIfNotExistsRequestSchema, { match_serviceql_query: "x" }));
    expect(error.rawMessage).toBe("create_request: is required");
  });
});

describe("setFieldFromJson", () => {
  const field = (name: string) => SinkSchema.fields.find((f) => f.name === name)!;
  const cases: [string, unknown, string, unknown][] = [
    ["inner", { name: "n" }, "inner", inner({ name: "n" })],
    ["meta", { a: 1 }, "meta", { a: 1 }],
    ["val", null, "val", value({ case: "nullValue", value: 0 })],
    ["inners", [{}], "inners", [inner({})]],
    ["choice_s", "c", "choice", { case: "choiceS", value: "c" }],
    ["inner", null, "inner", undefined],
  ];
  it.each(cases)("sets %s from %j", (name, json, localName, expected) => {
    const message = create(SinkSchema);
    setFieldFromJson(message, field(name), json);
    expect((message as unknown as Local)[localName]).toEqual(expected);
  });

  it("names the field in errors", () => {
    expect(errorOf(() => setFieldFromJson(create(SinkSchema), field("inner"), { name: 2 })).rawMessage).toBe("inner.name: expected string");
  });
});
