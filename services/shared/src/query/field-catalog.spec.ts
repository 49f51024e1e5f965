import { createFieldCatalog, outerJoined } from "./field-catalog";
import { isValidFieldPath, splitFieldPath } from "./field-path";

const catalog = createFieldCatalog({
  prefixes: ["file", "dataset"],
  columns: {
    name: { sql: '"f"."name"', type: "text" },
    "association.id": { sql: '"f"."association_id"', type: "text" },
    dataset: { sql: '"f"."dataset_name"', type: "text" },
  },
  jsonColumns: { metadata: '"f"."metadata"' },
});

describe("createFieldCatalog", () => {
  it.each([
    ["name", { kind: "column", sql: '"f"."name"', type: "text" }],
    ["file.name", { kind: "column", sql: '"f"."name"', type: "text" }],
    ["dataset.file.name", { kind: "column", sql: '"f"."name"', type: "text" }],
    ["association.id", { kind: "column", sql: '"f"."association_id"', type: "text" }],
    ["dataset", { kind: "column", sql: '"f"."dataset_name"', type: "text" }],
    ["metadata.vehicle.id", { kind: "json", sql: '"f"."metadata"', path: ["vehicle", "id"] }],
    ["file.metadata.list.0", { kind: "json", sql: '"f"."metadata"', path: ["list", "0"] }],
    ["metadata", { kind: "json", sql: '"f"."metadata"', path: [] }],
  ])("resolves %p", (field, ref) => {
    expect(catalog.resolve(field)).toEqual(ref);
  });

  it.each(["nope", "file", "file.nope", "constructor", "__proto__", "toString", "name.x", "metadata.a[b].c", "msgpaths[a.b].max"])(
    "does not resolve %p",
    (field) => {
      expect(catalog.resolve(field)).toBeUndefined();
    },
  );

  it("refuses SQL holding a '?', which would read as a placeholder", () => {
    expect(() => createFieldCatalog({ columns: { x: { sql: "a ? b", type: "text" } } })).toThrow(
      "raw SQL must not contain '?': a ? b",
    );
  });
});

describe("field paths", () => {
  it.each([
    ["a", ["a"]],
    ["a.b.0", ["a", "b", "0"]],
    ["msgpaths[cpuload.load].max", ["msgpaths[cpuload.load]", "max"]],
  ])("splits %p", (field, segments) => {
    expect(splitFieldPath(field)).toEqual(segments);
  });

  it.each(["a", "a.b", "a_b.c-d", "list.0", "msgpaths[cpuload.load].max", "x[1][2]"])("accepts %p", (field) => {
    expect(isValidFieldPath(field)).toBe(true);
  });

  it.each(["", ".a", "a.", "a..b", "a b", "a'b", "-a", "a[]", "a[b", "a.b]", "x".repeat(257)])("rejects %p", (field) => {
    expect(isValidFieldPath(field)).toBe(false);
  });

  it("keeps a column's NOT NULL declaration, and lists its columns", () => {
    const declared = createFieldCatalog({ columns: { created: { sql: '"f"."created"', type: "timestamp", notNull: true } } });
    expect(declared.resolve("created")).toEqual({ kind: "column", sql: '"f"."created"', type: "timestamp", notNull: true });
    expect([...declared.columns.keys()]).toEqual(["created"]);
  });

  it("drops NOT NULL over an outer join, where a missing row reads as nulls", () => {
    const declared = createFieldCatalog({ columns: { created: { sql: '"d"."created"', type: "timestamp", notNull: true } }, jsonColumns: { metadata: '"d"."metadata"' } });
    const joined = outerJoined(declared);
    expect(joined.resolve("created")).toEqual({ kind: "column", sql: '"d"."created"', type: "timestamp" });
    expect(joined.resolve("metadata.a")).toEqual(declared.resolve("metadata.a"));
    expect(joined.resolve("nope")).toBeUndefined();
  });
});
