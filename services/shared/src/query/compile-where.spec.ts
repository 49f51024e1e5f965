import { Code, ConnectError } from "@connectrpc/connect";
import { MikroORM } from "@mikro-orm/postgresql";
import { compileOrderBy } from "./compile-order-by";
import { compileWhere } from "./compile-where";
import type { QueryNode } from "./condition";
import { createFieldCatalog } from "./field-catalog";
import { parseConditionJson } from "./parse-condition-json";
import { parseQueryText } from "./parse-query-text";
import type { SqlFragment } from "./sql-fragment";

// pg ships without types here and the repository adds no dependencies, so describe what is used.
interface PgClient {
  connect(): Promise<void>;
  query(text: string, params?: readonly unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}
const { Client } = require("pg") as { Client: new (options: { connectionString: string }) => PgClient };

const catalog = createFieldCatalog({
  prefixes: ["dataset"],
  columns: {
    id: { sql: '"t"."id"', type: "text" },
    name: { sql: '"t"."name"', type: "text" },
    created: { sql: '"t"."created"', type: "timestamp" },
    size: { sql: '"t"."size"', type: "number" },
    archived: { sql: '"t"."archived"', type: "boolean" },
    tags: { sql: '"t"."tags"', type: "text[]" },
  },
  jsonColumns: { metadata: '"t"."metadata"' },
});

const ROWS = [
  ["r1", "alpha.csv", "2025-01-01T00:00:00Z", 10, false, ["warehouse", "outdoor"],
    { vehicle: { id: "v1", speed: 5.5 }, count: 3, ok: true, note: null, list: ["a", "b"], nums: [1, 2], text: "hello world 50%" }],
  ["r2", "beta.bag", "2025-04-05T12:00:00Z", 200, true, ["warehouse"],
    { vehicle: { id: "v2", speed: 12 }, count: "3", ok: false, note: "n", list: ["c"], text: "under_score" }],
  ["r3", "gamma_1.csv", "2025-06-01T00:00:00Z", null, null, [], { vehicle: { id: "v1" }, count: 10, flags: [true] }],
  ["r4", null, "2024-12-31T23:59:59Z", 0, false, null, {}],
  ["r5", "Alpha", "2025-04-05T00:00:00Z", -1.5, false, ["outdoor"], null],
];
const ALL = ["r1", "r2", "r3", "r4", "r5"];
// A real table (not TEMP) so MikroORM's pooled connections see it too; unique per run.
const TABLE = `q_items_${process.pid}_${Date.now()}`;

let client: PgClient;

beforeAll(async () => {
  const url = process.env["HANGAR_TEST_DATABASE_URL"];
  if (!url) throw new Error("HANGAR_TEST_DATABASE_URL is not set: the jest global setup starts PostgreSQL and sets it");
  client = new Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE TABLE ${TABLE} (id text PRIMARY KEY, name text, created timestamptz,
    size numeric, archived boolean, tags text[], metadata jsonb)`);
  for (const row of ROWS) {
    await client.query(`INSERT INTO ${TABLE} VALUES ($1, $2, $3, $4, $5, $6, $7)`, [...row.slice(0, 6), JSON.stringify(row[6])]);
  }
});

afterAll(async () => {
  await client.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await client.end();
});

// The engine emits knex-style `?` placeholders; the pg client wants $1..$n.
async function run(fragment: SqlFragment, select: (sql: string) => string): Promise<string[]> {
  const placeholders = fragment.sql.split("?").length - 1;
  expect(placeholders).toBe(fragment.params.length);
  let n = 0;
  const sql = select(fragment.sql.replace(/\?/g, () => `$${++n}`));
  const result = await client.query(sql, fragment.params);
  return result.rows.map((row) => String(row["id"]));
}

function idsWhere(query: string | QueryNode | undefined): Promise<string[]> {
  const node = typeof query === "string" ? parseQueryText(query) : query;
  return run(compileWhere(node, catalog), (where) => `SELECT t.id FROM ${TABLE} t WHERE ${where} ORDER BY t.id`);
}

describe("compileWhere on text columns", () => {
  it.each([
    ["name = 'alpha.csv'", ["r1"]],
    ["name != 'alpha.csv'", ["r2", "r3", "r4", "r5"]],
    ["name > 'beta'", ["r2", "r3"]],
    ["name CONTAINS '.'", ["r1", "r2", "r3"]],
    ["name CONTAINS '_'", ["r3"]],
    ["name CONTAINS 'ALPHA'", ["r1", "r5"]],
    ["name NOT CONTAINS 'alpha'", ["r2", "r3", "r4"]],
    ["name NOT CONTAINS '.csv'", ["r2", "r4", "r5"]],
    ["name BEGINS WITH 'alpha'", ["r1"]],
    ["name BEGINS WITH '%'", []],
    ["name LIKE '%.csv'", ["r1", "r3"]],
    ["name LIKE 'a%'", ["r1"]],
    [String.raw`name LIKE 'gamma\_1%'`, ["r3"]],
    ["name NOT LIKE '%.csv'", ["r2", "r4", "r5"]],
    ["name IS NULL", ["r4"]],
    ["name IS NOT NULL", ["r1", "r2", "r3", "r5"]],
    ["name EXISTS", ALL],
    ["name NOT EXISTS", []],
    ["dataset.name = 'beta.bag'", ["r2"]],
  ])("%s", async (query, ids) => {
    expect(await idsWhere(query)).toEqual(ids);
  });
});

describe("compileWhere on timestamp, number and boolean columns", () => {
  it.each([
    ["created > '2025-04-05'", ["r2", "r3"]],
    ["created >= '2025-04-05'", ["r2", "r3", "r5"]],
    ["created = '2025-04-05T12:00:00Z'", ["r2"]],
    ["created = '2025-04-05T14:00:00+02:00'", ["r2"]],
    ["created < '2025-01-01T00:00:00'", ["r4"]],
    ["created != '2025-04-05'", ["r1", "r2", "r3", "r4"]],
    ["size > 5", ["r1", "r2"]],
    ["size = '10.0'", ["r1"]],
    ["size < 0", ["r5"]],
    ["size <= 0", ["r4", "r5"]],
    ["size != 10", ["r2", "r3", "r4", "r5"]],
    ["size IS NULL", ["r3"]],
    ["archived = true", ["r2"]],
    ["archived = false", ["r1", "r4", "r5"]],
    ["archived != true", ["r1", "r3", "r4", "r5"]],
  ])("%s", async (query, ids) => {
    expect(await idsWhere(query)).toEqual(ids);
  });
});

describe("compileWhere on list columns", () => {
  it.each([
    ["tags CONTAINS 'warehouse'", ["r1", "r2"]],
    ["tags = 'outdoor'", ["r1", "r5"]],
    ["tags NOT CONTAINS 'warehouse'", ["r3", "r4", "r5"]],
    ["tags CONTAINS 'ware'", []],
    ["tags IS NULL", ["r4"]],
  ])("%s", async (query, ids) => {
    expect(await idsWhere(query)).toEqual(ids);
  });
});

describe("compileWhere on JSON paths", () => {
  it.each([
    ["metadata.vehicle.id = 'v1'", ["r1", "r3"]],
    ["dataset.metadata.vehicle.id = 'v2'", ["r2"]],
    ["metadata.vehicle.id != 'v1'", ["r2", "r4", "r5"]],
    ["metadata.vehicle.id > 'v1'", ["r2"]],
    ["metadata.vehicle.speed > 5", ["r1", "r2"]],
    ["metadata.vehicle.speed >= 12", ["r2"]],
    ["metadata.count = 3", ["r1"]],
    ["metadata.count = '3'", ["r2"]],
    ["metadata.count > 2", ["r1", "r3"]],
    ["metadata.count < '5'", ["r2"]],
    ["metadata.ok = true", ["r1"]],
    ["metadata.ok = false", ["r2"]],
    ["metadata.ok != true", ["r2", "r3", "r4", "r5"]],
    ["metadata.note IS NULL", ["r1", "r3", "r4", "r5"]],
    ["metadata.note IS NOT NULL", ["r2"]],
    ["metadata.note EXISTS", ["r1", "r2"]],
    ["metadata.note NOT EXISTS", ["r3", "r4", "r5"]],
    ["metadata.list CONTAINS 'a'", ["r1"]],
    ["metadata.list NOT CONTAINS 'a'", ["r2", "r3", "r4", "r5"]],
    ["metadata.nums CONTAINS 2", ["r1"]],
    ["metadata.flags CONTAINS true", ["r3"]],
    ["metadata.text CONTAINS 'world'", ["r1"]],
    ["metadata.text CONTAINS 'WORLD'", ["r1"]],
    ["metadata.text CONTAINS '50%'", ["r1"]],
    ["metadata.text CONTAINS '_'", ["r2"]],
    ["metadata.list.1 = 'b'", ["r1"]],
    ["metadata.list.x = 'a'", []],
    ["metadata.text BEGINS WITH 'hello'", ["r1"]],
    ["metadata.text LIKE '%score'", ["r2"]],
    ["metadata.vehicle LIKE '%'", []],
    ["metadata.count LIKE '1%'", []],
    ["metadata.vehicle.id NOT LIKE 'v1'", ["r2", "r4", "r5"]],
    ["metadata IS NULL", ["r5"]],
    ["metadata.nested.deep.x EXISTS", []],
  ])("%s", async (query, ids) => {
    expect(await idsWhere(query)).toEqual(ids);
  });
});

describe("compileWhere groups", () => {
  it.each([
    ["tags CONTAINS 'warehouse' AND size > 50", ["r2"]],
    ["name = 'alpha.csv' OR metadata.vehicle.id = 'v2'", ["r1", "r2"]],
    ["NOT name LIKE '%.csv'", ["r2", "r4", "r5"]],
    ["NOT (name = 'alpha.csv' OR size > 100)", ["r3", "r4", "r5"]],
    ["NOT NOT name = 'alpha.csv'", ["r1"]],
    ["name = 'x' OR (metadata.vehicle.speed >= 12 AND NOT metadata.note IS NULL)", ["r2"]],
  ])("%s", async (query, ids) => {
    expect(await idsWhere(query)).toEqual(ids);
  });

  it("reads a NOT group of several conditions as none of them matching", async () => {
    const node = parseConditionJson({
      operator: "NOT",
      conditions: [
        { field: "name", comparator: "LIKE", value: "%.csv" },
        { field: "archived", comparator: "EQUALS", value: true },
      ],
    });
    expect(await idsWhere(node)).toEqual(["r4", "r5"]);
  });

  it("matches every row without a condition", async () => {
    expect(await idsWhere(undefined)).toEqual(ALL);
  });
});

describe("compileWhere safety", () => {
  it("keeps quotes in values as data", async () => {
    expect(await idsWhere(`name = 'x''; DROP TABLE ${TABLE}; --'`)).toEqual([]);
    expect(await idsWhere("name = 'alpha.csv'")).toEqual(["r1"]);
  });

  it("passes a question mark in a value as data", async () => {
    const where = compileWhere(parseQueryText("name = 'what?' OR metadata.x = 'y?'"), catalog);
    expect(where.params).toEqual(["what?", "x", "x", "y?"]);
    expect(await idsWhere("name = 'what?'")).toEqual([]);
  });

  it("never emits a jsonb ? operator", () => {
    const node = parseQueryText("metadata.a EXISTS OR metadata.a CONTAINS 'x' OR metadata.a IS NULL OR metadata.a = 1");
    const where = compileWhere(node, catalog);
    expect(where.sql.split("?").length - 1).toBe(where.params.length);
    expect(where.sql).not.toMatch(/\?[|&?]/);
  });
});

function compileError(json: unknown): string {
  try {
    compileWhere(parseConditionJson(json), catalog);
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.InvalidArgument) return err.rawMessage;
    throw err;
  }
  throw new Error(`no error for ${JSON.stringify(json)}`);
}

describe("compileWhere errors", () => {
  const c = (field: string, comparator: string, value?: unknown) => ({ field, comparator, value });
  it.each([
    [c("nope", "EQUALS", 1), "condition.field: unknown field 'nope'"],
    [c("msgpaths[cpu.load].max", "GREATER_THAN", 1), "condition.field: unknown field 'msgpaths[cpu.load].max'"],
    [
      { operator: "AND", conditions: [c("name", "EXISTS"), c("created", "GREATER_THAN", "yesterday")] },
      "condition.conditions[1].value: GREATER_THAN on field 'created' needs an ISO 8601 date or date-time, got 'yesterday'",
    ],
    [c("created", "EQUALS", "2025-02-30"), "condition.value: EQUALS on field 'created' needs an ISO 8601 date or date-time, got '2025-02-30'"],
    [c("created", "LESS_THAN", 5), "condition.value: LESS_THAN on field 'created' needs an ISO 8601 date or date-time, got 5"],
    [c("created", "CONTAINS", 5), "condition.comparator: CONTAINS cannot be used on timestamp field 'created'"],
    [c("name", "NOT_EQUALS", 5), "condition.value: NOT_EQUALS on field 'name' needs a string, got 5"],
    [c("name", "LIKE", true), "condition.value: LIKE on field 'name' needs a string, got true"],
    [c("size", "GREATER_THAN", "abc"), "condition.value: GREATER_THAN on field 'size' needs a number, got 'abc'"],
    [c("size", "CONTAINS", 1), "condition.comparator: CONTAINS cannot be used on number field 'size'"],
    [c("archived", "GREATER_THAN", true), "condition.comparator: GREATER_THAN cannot be used on boolean field 'archived'"],
    [c("archived", "EQUALS", "yes"), "condition.value: EQUALS on field 'archived' needs true or false, got 'yes'"],
    [c("tags", "GREATER_THAN", "a"), "condition.comparator: GREATER_THAN cannot be used on list field 'tags'"],
    [c("tags", "NOT_CONTAINS", 1), "condition.value: NOT_CONTAINS on field 'tags' needs a string, got 1"],
    [c("metadata.x", "GREATER_THAN", true), "condition.value: GREATER_THAN on field 'metadata.x' needs a number or a string, got true"],
    [c("metadata.x", "BEGINS_WITH", 1), "condition.value: BEGINS_WITH on field 'metadata.x' needs a string, got 1"],
  ])("%j", (json, message) => {
    expect(compileError(json)).toBe(message);
  });

  it("names the request field it was given", () => {
    expect(() => compileWhere(parseQueryText("a = 1 OR nope = 2"), catalog, "query")).toThrow(
      "query.conditions[0].field: unknown field 'a'",
    );
  });

  it("requires a value on a hand-built condition", () => {
    expect(() => compileWhere({ field: "name", comparator: "EQUALS" }, catalog)).toThrow(
      "condition.value: is required for comparator EQUALS",
    );
  });
});

describe("compileOrderBy on PostgreSQL", () => {
  function idsOrdered(sortBy?: string, direction?: string): Promise<string[]> {
    const order = compileOrderBy(sortBy, direction, catalog, '"t"."id"');
    return run(order, (orderBy) => `SELECT t.id FROM ${TABLE} t ORDER BY ${orderBy}`);
  }

  it.each([
    [undefined, undefined, ["r3", "r2", "r5", "r1", "r4"]],
    ["size", "asc", ["r5", "r4", "r1", "r2", "r3"]],
    ["metadata.count", "ASC", ["r2", "r1", "r3", "r4", "r5"]],
    ["metadata.vehicle.id", "DESC", ["r2", "r3", "r1", "r5", "r4"]],
    ["archived", "ASC", ["r1", "r4", "r5", "r2", "r3"]],
  ])("sort_by %p %p", async (sortBy, direction, ids) => {
    expect(await idsOrdered(sortBy, direction)).toEqual(ids);
  });
});

// The services run compiled SQL through MikroORM, which inlines `?` parameters itself; check that
// path agrees with real bind parameters, including values holding ?, quotes and backslashes.
describe("compileWhere through MikroORM execute", () => {
  let orm: MikroORM;

  beforeAll(async () => {
    orm = await MikroORM.init({
      clientUrl: process.env["HANGAR_TEST_DATABASE_URL"],
      entities: [],
      discovery: { warnWhenNoEntities: false },
      debug: false,
    });
  });

  afterAll(async () => {
    await orm.close(true);
  });

  it.each([
    ["name = 'what?' OR name = 'alpha.csv'", ["r1"]],
    [String.raw`name = 'a\\?b' OR metadata.text CONTAINS '50%'`, ["r1"]],
    ["name = 'it''s' OR size < -1", ["r5"]],
    ["created >= '2025-04-05T00:00:00Z' AND archived = false", ["r5"]],
    ["metadata.vehicle.speed > 5.5 OR metadata.list CONTAINS 'a'", ["r1", "r2"]],
    ["NOT metadata.ok = true AND tags CONTAINS 'warehouse'", ["r2"]],
  ])("%s", async (query, ids) => {
    const where = compileWhere(parseQueryText(query), catalog);
    const sql = `SELECT t.id FROM ${TABLE} t WHERE ${where.sql} ORDER BY t.id`;
    const rows: Array<{ id: string }> = await orm.em.fork().getConnection().execute(sql, [...where.params]);
    expect(rows.map((row) => row.id)).toEqual(ids);
  });

  it("keeps ? and backslashes in values intact", async () => {
    const where = compileWhere(parseQueryText(String.raw`id = 'what?' OR id = 'a\\?b'`), catalog);
    // chr(63) is '?' and chr(92) a backslash: the template itself must hold no literal '?'.
    const values = "('what' || chr(63)), ('a' || chr(92) || chr(63) || 'b'), ('what')";
    const sql = `SELECT t.id FROM (VALUES ${values}) AS t(id) WHERE ${where.sql} ORDER BY t.id`;
    const rows: Array<{ id: string }> = await orm.em.fork().getConnection().execute(sql, [...where.params]);
    expect(rows.map((row) => row.id)).toEqual(["a\\?b", "what?"]);
  });
});
