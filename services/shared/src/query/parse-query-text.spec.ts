import { Code, ConnectError } from "@connectrpc/connect";
import type { QueryNode } from "./condition";
import { parseConditionJson } from "./parse-condition-json";
import { parseQueryText } from "./parse-query-text";

function errorOf(text: string): string {
  try {
    parseQueryText(text);
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.InvalidArgument) return err.rawMessage;
    throw err;
  }
  throw new Error(`no error for ${text}`);
}

describe("parseQueryText comparators", () => {
  it.each([
    ["a = 'x'", { field: "a", comparator: "EQUALS", value: "x" }],
    ["a == 'x'", { field: "a", comparator: "EQUALS", value: "x" }],
    ["a != 'x'", { field: "a", comparator: "NOT_EQUALS", value: "x" }],
    ["a <> 'x'", { field: "a", comparator: "NOT_EQUALS", value: "x" }],
    ["a > 1", { field: "a", comparator: "GREATER_THAN", value: 1 }],
    ["a >= 1", { field: "a", comparator: "GREATER_THAN_OR_EQUAL", value: 1 }],
    ["a < 1", { field: "a", comparator: "LESS_THAN", value: 1 }],
    ["a <= 1", { field: "a", comparator: "LESS_THAN_OR_EQUAL", value: 1 }],
    ["a>=1", { field: "a", comparator: "GREATER_THAN_OR_EQUAL", value: 1 }],
    ["tags CONTAINS 'x'", { field: "tags", comparator: "CONTAINS", value: "x" }],
    ["tags NOT CONTAINS 'x'", { field: "tags", comparator: "NOT_CONTAINS", value: "x" }],
    ["tags NOT_CONTAINS 'x'", { field: "tags", comparator: "NOT_CONTAINS", value: "x" }],
    ["path LIKE '%.csv'", { field: "path", comparator: "LIKE", value: "%.csv" }],
    ["path NOT LIKE '%.csv'", { field: "path", comparator: "NOT_LIKE", value: "%.csv" }],
    ["path NOT_LIKE '%.csv'", { field: "path", comparator: "NOT_LIKE", value: "%.csv" }],
    ["name BEGINS WITH 'ab'", { field: "name", comparator: "BEGINS_WITH", value: "ab" }],
    ["name BEGINS_WITH 'ab'", { field: "name", comparator: "BEGINS_WITH", value: "ab" }],
    ["a IS NULL", { field: "a", comparator: "IS_NULL" }],
    ["a IS NOT NULL", { field: "a", comparator: "IS_NOT_NULL" }],
    ["a IS_NOT_NULL", { field: "a", comparator: "IS_NOT_NULL" }],
    ["a EXISTS", { field: "a", comparator: "EXISTS" }],
    ["a NOT EXISTS", { field: "a", comparator: "NOT_EXISTS" }],
    ["a NOT_EXISTS", { field: "a", comparator: "NOT_EXISTS" }],
    ["a GREATER_THAN_OR_EQUAL 2", { field: "a", comparator: "GREATER_THAN_OR_EQUAL", value: 2 }],
    ["a = null", { field: "a", comparator: "IS_NULL" }],
    ["a != NULL", { field: "a", comparator: "IS_NOT_NULL" }],
  ])("%s", (text, expected) => {
    expect(parseQueryText(text)).toEqual(expected);
  });

  it("reads keywords in any case", () => {
    expect(parseQueryText("a is not null and b begins with 'x' or not c not contains 'y'")).toEqual({
      operator: "OR",
      conditions: [
        {
          operator: "AND",
          conditions: [
            { field: "a", comparator: "IS_NOT_NULL" },
            { field: "b", comparator: "BEGINS_WITH", value: "x" },
          ],
        },
        { operator: "NOT", conditions: [{ field: "c", comparator: "NOT_CONTAINS", value: "y" }] },
      ],
    });
  });
});

describe("parseQueryText values", () => {
  it.each([
    ["a = 'single'", "single"],
    ['a = "double"', "double"],
    ["a = ''", ""],
    [String.raw`a = 'it\'s'`, "it's"],
    ["a = 'it''s'", "it's"],
    [String.raw`a = "say \"hi\""`, 'say "hi"'],
    [String.raw`a = 'back\\slash'`, "back\\slash"],
    [String.raw`a = 'tab\there'`, "tab\there"],
    [String.raw`a = '50\%'`, "50\\%"],
    ["a = 'AND ( ) = x'", "AND ( ) = x"],
    ["a = 42", 42],
    ["a = 0", 0],
    ["a = -7", -7],
    ["a = 3.25", 3.25],
    ["a = -0.5", -0.5],
    ["a = 1e3", 1000],
    ["a = true", true],
    ["a = FALSE", false],
  ])("%s", (text, value) => {
    expect(parseQueryText(text)).toEqual({ field: "a", comparator: "EQUALS", value });
  });
});

describe("parseQueryText fields", () => {
  it.each([
    ["dataset.metadata.vehicle_id = 'v1'", "dataset.metadata.vehicle_id"],
    ["metadata.list.0 = 'v1'", "metadata.list.0"],
    ["metadata.vehicle-id = 'v1'", "metadata.vehicle-id"],
    ["msgpaths[cpuload.load].max > 0.9", "msgpaths[cpuload.load].max"],
    ["_private = 1", "_private"],
  ])("%s", (text, field) => {
    expect(parseQueryText(text)).toMatchObject({ field });
  });
});

describe("parseQueryText structure", () => {
  const a = { field: "a", comparator: "EQUALS", value: 1 };
  const b = { field: "b", comparator: "EQUALS", value: 2 };
  const c = { field: "c", comparator: "EQUALS", value: 3 };

  it("binds AND tighter than OR", () => {
    expect(parseQueryText("a = 1 OR b = 2 AND c = 3")).toEqual({
      operator: "OR",
      conditions: [a, { operator: "AND", conditions: [b, c] }],
    });
  });

  it("lets parentheses override precedence", () => {
    expect(parseQueryText("(a = 1 OR b = 2) AND c = 3")).toEqual({
      operator: "AND",
      conditions: [{ operator: "OR", conditions: [a, b] }, c],
    });
  });

  it("flattens a chain of one operator into one group", () => {
    expect(parseQueryText("a = 1 AND b = 2 AND c = 3")).toEqual({ operator: "AND", conditions: [a, b, c] });
  });

  it("applies NOT to the next term only", () => {
    expect(parseQueryText("NOT a = 1 AND b = 2")).toEqual({
      operator: "AND",
      conditions: [{ operator: "NOT", conditions: [a] }, b],
    });
  });

  it("applies NOT to a parenthesized group", () => {
    expect(parseQueryText("NOT (a = 1 OR b = 2)")).toEqual({
      operator: "NOT",
      conditions: [{ operator: "OR", conditions: [a, b] }],
    });
  });

  it("drops redundant parentheses", () => {
    expect(parseQueryText("((a = 1))")).toEqual(a);
  });

  it("gives the same AST as the JSON form", () => {
    const json = {
      operator: "OR",
      conditions: [
        { field: "name", comparator: "EQUALS", value: "x" },
        {
          operator: "AND",
          conditions: [
            { field: "metadata.a.b", comparator: "GREATER_THAN_OR_EQUAL", value: 3 },
            { operator: "NOT", conditions: [{ field: "metadata.c", comparator: "IS_NULL" }] },
          ],
        },
      ],
    };
    const fromText: QueryNode = parseQueryText(`name = "x" OR (metadata.a.b >= 3 AND NOT metadata.c IS NULL)`);
    expect(fromText).toEqual(parseConditionJson(json));
  });
});

describe("parseQueryText errors", () => {
  it.each([
    ["", "query: must not be empty"],
    ["   ", "query: must not be empty"],
    ["a = 1)", "query: unexpected ')' at position 6"],
    ["created > '2025-04-05' ) AND x = 1", "query: unexpected ')' at position 24"],
    ["(a = 1", "query: expected ')', found end of query at position 7"],
    ["a = 'open", "query: unterminated string at position 5"],
    ["a =", "query: expected a value, found end of query at position 4"],
    ["a = )", "query: expected a value, found ')' at position 5"],
    ["a = b", "query: expected a value, found 'b' at position 5"],
    ["a", "query: expected a comparator, found end of query at position 2"],
    ["a 'x'", "query: expected a comparator, found ''x'' at position 3"],
    ["a EQ 'x'", "query: unknown comparator 'EQ' at position 3"],
    ["a NOT IN 'x'", "query: unknown comparator 'NOT IN' at position 3"],
    ["= 1", "query: expected a field, found '=' at position 1"],
    ["AND a = 1", "query: expected a field, found 'AND' at position 1"],
    ["a = 1 AND", "query: expected a field, found end of query at position 10"],
    ["a = 1 b = 2", "query: unexpected 'b' at position 7"],
    ["a..b = 1", "query: invalid field 'a..b' at position 1"],
    ["a. = 1", "query: invalid field 'a.' at position 1"],
    ["a[x = 1", "query: unterminated '[' at position 2"],
    ["a = 1 # c", "query: unexpected character '#' at position 7"],
    ["a > null", "query: null can only be compared with = or != at position 5"],
    ["a IS NULL 1", "query: unexpected '1' at position 11"],
    ["a = 12abc", "query: unexpected character '1' at position 5"],
  ])("%j", (text, message) => {
    expect(errorOf(text)).toBe(message);
  });

  it("names the request field it was given", () => {
    expect(() => parseQueryText("a = ", "filter")).toThrow("filter: expected a value, found end of query at position 5");
  });

  it("rejects nesting deeper than 32 levels", () => {
    const text = "(".repeat(33) + "a = 1" + ")".repeat(33);
    expect(errorOf(text)).toBe("query: parentheses and NOT nest deeper than 32 levels at position 33");
  });

  it("accepts nesting of 32 levels", () => {
    const text = "NOT ".repeat(32) + "a = 1";
    expect(() => parseQueryText(text)).not.toThrow();
  });

  it("rejects more than 500 conditions", () => {
    const text = Array.from({ length: 501 }, (_, i) => `a = ${i}`).join(" OR ");
    const position = text.lastIndexOf("a = 500") + 1;
    expect(errorOf(text)).toBe(`query: a query may hold at most 500 conditions at position ${position}`);
  });

  it("rejects text longer than 20000 characters", () => {
    expect(errorOf(`a = '${"x".repeat(20_000)}'`)).toBe("query: is longer than 20000 characters");
  });
});
