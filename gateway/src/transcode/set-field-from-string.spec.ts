import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { QuerySpecificationSchema } from "@hangar/shared/proto/common";
import { GetDatasetRequestSchema, QueryDatasetsRequestSchema } from "@hangar/shared/proto/data";
import { checkRequired } from "./check-required";
import { findField } from "./field-table";
import { InnerSchema, ReqSchema, SinkSchema } from "./kitchen-sink.fixture";
import { setFieldFromString } from "./set-field-from-string";

type Local = Record<string, unknown>;

function errorOf(run: () => unknown): ConnectError {
  try {
    run();
  } catch (e) {
    if (e instanceof ConnectError) return e;
    throw e;
  }
  throw new Error("expected a ConnectError");
}

describe("setFieldFromString", () => {
  const cases: [string, string, string, unknown][] = [
    ["s", "a b/c", "s", "a b/c"],
    ["b", "true", "b", true],
    ["b", "false", "b", false],
    ["d", "1.25", "d", 1.25],
    ["d", "NaN", "d", NaN],
    ["i32", "-12", "i32", -12],
    ["i64", "9223372036854775807", "i64", 9223372036854775807n],
    ["i64s", "9223372036854775807", "i64s", "9223372036854775807"],
    ["opt_i64", "0", "optI64", 0n],
    ["optI64", "7", "optI64", 7n],
    ["color", "GREEN", "color", 2],
    ["color", "1", "color", 1],
    ["by", "aGk=", "by", new Uint8Array([104, 105])],
    ["i64_list", "5", "i64List", [5n]],
    ["colors", "RED", "colors", [1]],
    ["inner.name", "n", "inner", create(InnerSchema, { name: "n" })],
    ["inner.child.tags", "t", "inner", create(InnerSchema, { child: create(InnerSchema, { tags: ["t"] }) })],
    ["at", "2026-11-21", "at", { $typeName: "google.protobuf.Timestamp", seconds: 1795219200n, nanos: 0 }],
    ["took", "2s", "took", { $typeName: "google.protobuf.Duration", seconds: 2n, nanos: 0 }],
    ["wrapped", "w", "wrapped", "w"],
    ["choice_s", "c", "choice", { case: "choiceS", value: "c" }],
    ["choice_wrapped", "3", "choice", { case: "choiceWrapped", value: { $typeName: "google.protobuf.Int32Value", value: 3 } }],
    ["choice_inner.name", "x", "choice", { case: "choiceInner", value: create(InnerSchema, { name: "x" }) }],
  ];
  it.each(cases)("sets %s from %p", (path, raw, localName, expected) => {
    const message = create(SinkSchema);
    setFieldFromString(SinkSchema, message, path.split("."), raw);
    expect((message as unknown as Local)[localName]).toEqual(expected);
  });

  it("appends repeated values and keeps an existing nested message", () => {
    const message = create(SinkSchema);
    setFieldFromString(SinkSchema, message, ["i64_list"], "1");
    setFieldFromString(SinkSchema, message, ["i64_list"], "2");
    setFieldFromString(SinkSchema, message, ["inner", "name"], "n");
    setFieldFromString(SinkSchema, message, ["inner", "tags"], "t");
    expect(message).toMatchObject({ i64List: [1n, 2n], inner: { name: "n", tags: ["t"] } });
  });

  it("sets a nested field of a generated request", () => {
    const request = create(QueryDatasetsRequestSchema);
    setFieldFromString(QueryDatasetsRequestSchema, request, ["query", "limit"], "10");
    expect(request.query).toEqual(create(QuerySpecificationSchema, { limit: 10n }));
  });

  const errors: [string, string, string][] = [
    ["b", "yes", "b: expected true or false"],
    ["b", "1", "b: expected true or false"],
    ["i32", "1.5", "i32: expected integer"],
    ["i32", "", "i32: expected integer"],
    ["i32", "2147483648", "i32: out of range for int32"],
    ["u64", "-1", "u64: out of range for uint64"],
    ["d", "abc", "d: expected number"],
    ["color", "BLUE", "color: expected one of COLOR_UNSPECIFIED, RED, GREEN"],
    ["color", "7", "color: expected one of COLOR_UNSPECIFIED, RED, GREEN"],
    ["inner.name.x", "v", "inner.name.x: name has no fields to set"],
    ["at.seconds", "1", "at.seconds: at has no fields to set"],
    ["at", "noon", "at: expected an ISO 8601 date-time with a timezone, or a date"],
    ["inner.nope", "v", "inner.nope: no such field"],
    ["nope", "v", "nope: no such field"],
    ["inner", "v", "inner: cannot be set from a parameter"],
    ["inners", "v", "inners: cannot be set from a parameter"],
    ["counts", "v", "counts: cannot be set from a parameter"],
    ["meta", "v", "meta: cannot be set from a parameter"],
  ];
  it.each(errors)("refuses %s = %p: %s", (path, raw, message) => {
    const error = errorOf(() => setFieldFromString(SinkSchema, create(SinkSchema), path.split("."), raw));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toBe(message);
  });
});

describe("findField", () => {
  const cases: [string, string | undefined][] = [
    ["s", "test.v1.Sink.s"],
    ["optS", "test.v1.Sink.opt_s"],
    ["inner.child.name", "test.v1.Inner.name"],
    ["inner.nope", undefined],
    ["s.x", undefined],
    ["", undefined],
  ];
  it.each(cases)("finds %p", (path, expected) => {
    const field = findField(SinkSchema, path.split("."));
    expect(field === undefined ? undefined : `${field.parent.typeName}.${field.name}`).toBe(expected);
  });
});

describe("checkRequired", () => {
  it("passes when required fields are set", () => {
    expect(() => checkRequired(GetDatasetRequestSchema, create(GetDatasetRequestSchema, { datasetId: "ds_1" }))).not.toThrow();
  });

  it("names the first unset required field", () => {
    const error = errorOf(() => checkRequired(ReqSchema, create(ReqSchema, { id: "a" })));
    expect(error.rawMessage).toBe("v: is required");
    expect(errorOf(() => checkRequired(GetDatasetRequestSchema, create(GetDatasetRequestSchema))).rawMessage).toBe("dataset_id: is required");
  });
});
