import { compileOrderBy, resolveSortDirection } from "./compile-order-by";
import { createFieldCatalog } from "./field-catalog";

const catalog = createFieldCatalog({
  prefixes: ["dataset"],
  columns: {
    created: { sql: '"t"."created"', type: "timestamp" },
    name: { sql: '"t"."name"', type: "text" },
  },
  jsonColumns: { metadata: '"t"."metadata"' },
});
const ID = '"t"."dataset_id"';

describe("compileOrderBy", () => {
  it.each([
    [undefined, undefined, '"t"."created" DESC, "t"."dataset_id" DESC'],
    [null, null, '"t"."created" DESC, "t"."dataset_id" DESC'],
    ["", "", '"t"."created" DESC, "t"."dataset_id" DESC'],
    ["name", "asc", '"t"."name" ASC, "t"."dataset_id" ASC'],
    ["dataset.name", "Desc", '"t"."name" DESC, "t"."dataset_id" DESC'],
  ])("sort_by %p, sort_direction %p", (sortBy, direction, sql) => {
    expect(compileOrderBy(sortBy, direction, catalog, ID)).toEqual({ sql, params: [] });
  });

  it("sorts on a JSON path with missing values last", () => {
    expect(compileOrderBy("metadata.vehicle.id", "ASC", catalog, ID)).toEqual({
      sql: '("t"."metadata" #> ARRAY[?, ?]::text[]) ASC NULLS LAST, "t"."dataset_id" ASC',
      params: ["vehicle", "id"],
    });
  });

  it("uses the given default sort field", () => {
    expect(compileOrderBy(undefined, "ASC", catalog, ID, "name").sql).toBe('"t"."name" ASC, "t"."dataset_id" ASC');
  });

  it.each([
    ["nope", "sort_by: unknown field 'nope'"],
    ["name; drop table x", "sort_by: unknown field 'name; drop table x'"],
  ])("rejects sort_by %p", (sortBy, message) => {
    expect(() => compileOrderBy(sortBy, "ASC", catalog, ID)).toThrow(message);
  });

  it("rejects an unknown direction", () => {
    expect(() => compileOrderBy("name", "UP", catalog, ID)).toThrow("sort_direction: must be ASC or DESC, got 'UP'");
  });
});

describe("resolveSortDirection", () => {
  it.each([
    [undefined, "DESC"],
    ["", "DESC"],
    ["asc", "ASC"],
    ["DESC", "DESC"],
  ])("%p gives %p", (direction, expected) => {
    expect(resolveSortDirection(direction)).toBe(expected);
  });
});
