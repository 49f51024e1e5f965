import { create, type JsonObject } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { CreateDatasetRequestSchema, GetDatasetRequestSchema, UpdateDatasetRequestSchema } from "../gen/hangar/data/v1/dataset_pb";
import { BeginBatchUploadRequestSchema, ImportFilesRequestSchema } from "../gen/hangar/data/v1/file_pb";
import { checkLimits } from "./check-limits";

/** The message checkLimits threw, or undefined when the request passed. */
function violation(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    return (error as ConnectError).rawMessage;
  }
}

function dataset(fields: Parameters<typeof create<typeof CreateDatasetRequestSchema>>[1]): string | undefined {
  return violation(() => checkLimits(CreateDatasetRequestSchema, create(CreateDatasetRequestSchema, fields)));
}

/** A JSON object nested `levels` deep: {a: {a: ... {}}}. */
function nested(levels: number): JsonObject {
  let value: JsonObject = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** A Value message nested `levels` deep, built without recursion. */
function nestedValue(levels: number): Value {
  let value = create(ValueSchema, { kind: { case: "stringValue", value: "x" } });
  for (let i = 0; i < levels; i++) value = create(ValueSchema, { kind: { case: "listValue", value: { values: [value] } } });
  return value;
}

describe("checkLimits", () => {
  test("accepts values at their limits", () => {
    const tags = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(200, "t"));
    expect(dataset({ name: "n".repeat(119), description: "d".repeat(10_000), tags, metadata: { big: "m".repeat(65_000), deep: nested(31) } })).toBeUndefined();
  });

  test("counts characters as code points, not UTF-16 units", () => {
    expect(dataset({ tags: ["🚀".repeat(200)] })).toBeUndefined();
    expect(dataset({ tags: ["🚀".repeat(201)] })).toBe("tags[0]: at most 200 characters");
  });

  test("names the string field past its limit", () => {
    expect(dataset({ description: "d".repeat(10_001) })).toBe("description: at most 10000 characters");
    expect(dataset({ name: "n".repeat(120) })).toBe("name: at most 119 characters");
  });

  test("names the list, or the item, past its limit", () => {
    expect(dataset({ tags: Array.from({ length: 101 }, () => "t") })).toBe("tags: at most 100 items");
    expect(dataset({ tags: ["a", "b", "c", "t".repeat(1 << 20)] })).toBe("tags[3]: at most 200 characters");
  });

  test("bounds a Struct's JSON size and depth", () => {
    expect(dataset({ metadata: { big: "m".repeat(1 << 20) } })).toBe("metadata: at most 65536 bytes of JSON");
    expect(dataset({ customFields: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])) })).toBe("custom_fields: at most 65536 bytes of JSON");
    expect(dataset({ metadata: nested(32) })).toBeUndefined();
    expect(dataset({ metadata: nested(33) })).toBe("metadata: at most 32 levels deep");
  });

  test("measures a caller's `$typeName` key as plain JSON", () => {
    expect(dataset({ metadata: { $typeName: "google.protobuf.Struct", x: 1 } })).toBeUndefined();
  });

  test("holds a Value field's string to max_len and any other JSON to max_bytes and max_depth", () => {
    const update = (description: Value) => violation(() => checkLimits(UpdateDatasetRequestSchema, create(UpdateDatasetRequestSchema, { datasetId: "d", description })));
    expect(update(create(ValueSchema, { kind: { case: "stringValue", value: "d".repeat(10_000) } }))).toBeUndefined();
    expect(update(create(ValueSchema, { kind: { case: "stringValue", value: "d".repeat(10_001) } }))).toBe("description: at most 10000 characters");
    expect(update(nestedValue(20_000))).toBe("description: at most 32 levels deep");
  });

  test("names nested fields by their path", () => {
    const requests = Array.from({ length: 3 }, (_, i) => ({ datasetId: "d", relativePath: `f${i}`, uri: "s3://b/k", tags: i === 2 ? ["t".repeat(201)] : [] }));
    expect(violation(() => checkLimits(ImportFilesRequestSchema, create(ImportFilesRequestSchema, { requests })))).toBe("requests[2].tags[0]: at most 200 characters");
  });

  test("bounds a map's entries and keys, quoting only a prefix of a long key", () => {
    const manifest = (entries: [string, bigint][]) => violation(() => checkLimits(BeginBatchUploadRequestSchema, create(BeginBatchUploadRequestSchema, { resourceManifest: Object.fromEntries(entries) })));
    expect(manifest([["a".repeat(1024), 1n]])).toBeUndefined();
    expect(manifest([["a".repeat(1 << 20), 1n]])).toBe(`resource_manifest['${"a".repeat(64)}...']: keys are at most 1024 characters`);
    expect(manifest(Array.from({ length: 10_001 }, (_, i) => [`f${i}`, 1n]))).toBe("resource_manifest: at most 10000 items");
  });

  test("bounds a string's UTF-8 bytes where it declares max_bytes", () => {
    const get = (datasetId: string) => violation(() => checkLimits(GetDatasetRequestSchema, create(GetDatasetRequestSchema, { datasetId })));
    expect(get("中".repeat(666))).toBeUndefined();
    expect(get("中".repeat(667))).toBe("dataset_id: at most 2000 bytes of UTF-8");
    expect(get("d".repeat(1000))).toBeUndefined();
  });
});
