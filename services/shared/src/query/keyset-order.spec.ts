import { Code, ConnectError } from "@connectrpc/connect";
import { createFieldCatalog } from "./field-catalog";
import { compileKeysetOrder, cursorOfRow } from "./keyset-order";

const catalog = createFieldCatalog({
  columns: {
    name: { sql: '"t"."name"', type: "text" },
    created: { sql: '"t"."created"', type: "timestamp" },
    size: { sql: '"t"."size"', type: "number" },
    archived: { sql: '"t"."archived"', type: "boolean" },
    tags: { sql: '"t"."tags"', type: "text[]" },
    created_by: { sql: '"t"."created_by"', type: "text", notNull: true },
  },
  jsonColumns: { metadata: '"t"."metadata"' },
});
const ID = '"t"."id"';

describe("keyset predicates follow the order's null placement", () => {
  test.each([
    // Columns: PostgreSQL's default, NULLS LAST ascending and FIRST descending.
    ["name", "ASC", "x", '(("t"."name", "t"."id") > (?::text, ?) or "t"."name" is null)', ["x", "id1"]],
    ["name", "DESC", "x", '("t"."name", "t"."id") < (?::text, ?)', ["x", "id1"]],
    ["name", "ASC", null, '("t"."name" is null and "t"."id" > ?)', ["id1"]],
    ["name", "DESC", null, '(("t"."name" is null and "t"."id" < ?) or "t"."name" is not null)', ["id1"]],
  ])("%s %s after key %p", (sortBy, direction, key, sql, params) => {
    const after = compileKeysetOrder(sortBy, direction, catalog, ID).after({ key, id: "id1" }, "after");
    expect(after).toEqual({ sql, params });
  });

  test("JSON paths sort missing values last in both directions", () => {
    const order = compileKeysetOrder("metadata.rank", "DESC", catalog, ID);
    expect(order.after({ key: "3", id: "id1" }, "after")).toEqual({
      sql: `((("t"."metadata" #> ARRAY[?]::text[]), "t"."id") < (?::jsonb, ?) or ("t"."metadata" #> ARRAY[?]::text[]) is null)`,
      params: ["rank", "3", "id1", "rank"],
    });
  });

  // A NOT NULL column has no null rows to reach: the page is one index range from the cursor on.
  test.each([
    ["ASC", '("t"."created_by", "t"."id") > (?::text, ?)'],
    ["DESC", '("t"."created_by", "t"."id") < (?::text, ?)'],
  ])("a NOT NULL column %s after a key: the row comparison alone", (direction, sql) => {
    const order = compileKeysetOrder("created_by", direction, catalog, ID);
    expect(order.after({ key: "x", id: "id1" }, "after")).toEqual({ sql, params: ["x", "id1"] });
    expect(order.afterRanges({ key: "x", id: "id1" }, "after")).toEqual([{ sql, params: ["x", "id1"] }]);
  });

  test("a column not declared NOT NULL keeps its null arm ascending (the catalog decides)", () => {
    const after = compileKeysetOrder("name", "ASC", catalog, ID).after({ key: "x", id: "id1" }, "after");
    expect(after.sql).toContain('or "t"."name" is null');
  });

  test.each([
    // A nullable key ascending: the later keys, then every null key (both index ranges).
    ["name", "ASC", "x", ['("t"."name", "t"."id") > (?::text, ?)', '"t"."name" is null']],
    // Descending after a null key: the later null keys, then every non-null key.
    ["name", "DESC", null, ['("t"."name" is null and "t"."id" < ?)', '"t"."name" is not null']],
    ["name", "DESC", "x", ['("t"."name", "t"."id") < (?::text, ?)']],
    ["name", "ASC", null, ['("t"."name" is null and "t"."id" > ?)']],
    ["created_by", "ASC", "x", ['("t"."created_by", "t"."id") > (?::text, ?)']],
  ])("afterRanges: %s %s after key %p, in page order", (sortBy, direction, key, ranges) => {
    const order = compileKeysetOrder(sortBy, direction, catalog, ID);
    expect(order.afterRanges({ key, id: "id1" }, "after").map((r) => r.sql)).toEqual(ranges);
  });

  test("no cursor is the first page", () => {
    expect(compileKeysetOrder("name", "ASC", catalog, ID).after(undefined, "after").sql).toBe("TRUE");
    expect(compileKeysetOrder("name", "ASC", catalog, ID).afterRanges(undefined, "after").map((r) => r.sql)).toEqual(["TRUE"]);
  });
});

describe("keys travel exactly", () => {
  test("timestamps as microseconds since the epoch, read back without a JS Date", () => {
    const order = compileKeysetOrder("created", "DESC", catalog, ID);
    expect(order.cursorColumns.sql).toBe('(extract(epoch from "t"."created") * 1000000)::bigint::text as page_key, "t"."id" as page_id');
    expect(order.after({ key: "1767225600123456", id: "a" }, "after").params).toEqual(["1767225600123456", "a"]);
  });

  test("integers compare as bigint (an integer column's index serves them), decimals as numeric", () => {
    const order = compileKeysetOrder("size", "ASC", catalog, ID);
    expect(order.after({ key: "42", id: "a" }, "after").sql).toContain("(?::bigint, ?)");
    expect(order.after({ key: "4.5", id: "a" }, "after").sql).toContain("(?::numeric, ?)");
  });

  // Nanosecond times since 2001 have 19 digits; as numeric they would cast the column and lose its index.
  test.each([
    ["1735689600000000000", "bigint"],
    ["9223372036854775807", "bigint"],
    ["-9223372036854775808", "bigint"],
    ["9223372036854775808", "numeric"],
    ["12345678901234567890", "numeric"],
  ])("integer key %s compares as %s", (key, type) => {
    const order = compileKeysetOrder("size", "ASC", catalog, ID);
    expect(order.after({ key, id: "a" }, "after").sql).toContain(`(?::${type}, ?)`);
  });

  test("a row's cursor comes from its page_key and page_id", () => {
    expect(cursorOfRow({ page_key: "k", page_id: "i", other: 1 })).toEqual({ key: "k", id: "i" });
    expect(cursorOfRow({ page_key: null, page_id: "i" })).toEqual({ key: null, id: "i" });
  });
});

describe("a key that does not read as the field's type is a 400 naming the token's field", () => {
  test.each([
    ["created", "2026-01-01"],
    ["created", "12345678901234567"],
    ["size", "1e99999"],
    ["size", "ten"],
    ["archived", "yes"],
    ["tags", '["a", 1]'],
    ["metadata.rank", "{"],
    ["metadata.rank", '"\\u0000"'],
    ["metadata.rank", '"\\ud800"'],
    ["metadata.rank", "1e400"],
  ])("%s key %p", (sortBy, key) => {
    const order = compileKeysetOrder(sortBy, "ASC", catalog, ID);
    let error: unknown;
    try {
      order.after({ key, id: "a" }, "page_token");
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    expect((error as ConnectError).rawMessage).toBe("page_token: is not a valid page token");
  });
});
