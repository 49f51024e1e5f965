import { Code, ConnectError } from "@connectrpc/connect";
import { parseConditionJson } from "./parse-condition-json";

function errorOf(json: unknown): string {
  try {
    parseConditionJson(json);
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.InvalidArgument) return err.rawMessage;
    throw err;
  }
  throw new Error(`no error for ${JSON.stringify(json)}`);
}

function nestGroups(depth: number): unknown {
  let node: unknown = { field: "a", comparator: "EXISTS" };
  for (let i = 0; i < depth; i++) node = { operator: "AND", conditions: [node] };
  return node;
}

describe("parseConditionJson", () => {
  it.each([null, undefined])("reads %p as no condition", (json) => {
    expect(parseConditionJson(json)).toBeUndefined();
  });

  it("returns a condition", () => {
    expect(parseConditionJson({ field: "metadata.a.b", comparator: "EQUALS", value: 1 })).toEqual({
      field: "metadata.a.b",
      comparator: "EQUALS",
      value: 1,
    });
  });

  it("returns nested groups", () => {
    const json = {
      operator: "NOT",
      conditions: [
        { operator: "OR", conditions: [{ field: "tags", comparator: "CONTAINS", value: "x" }] },
        { field: "created", comparator: "LESS_THAN", value: "2025-01-01" },
      ],
    };
    expect(parseConditionJson(json)).toEqual(json);
  });

  it("normalizes operator and comparator case", () => {
    expect(parseConditionJson({ operator: "and", conditions: [{ field: "a", comparator: "is_null" }] })).toEqual({
      operator: "AND",
      conditions: [{ field: "a", comparator: "IS_NULL" }],
    });
  });

  it.each(["IS_NULL", "IS_NOT_NULL", "EXISTS", "NOT_EXISTS"])("drops any value for %s", (comparator) => {
    expect(parseConditionJson({ field: "a", comparator, value: "ignored" })).toEqual({ field: "a", comparator });
  });

  it.each([
    ["EQUALS", "IS_NULL"],
    ["NOT_EQUALS", "IS_NOT_NULL"],
  ])("reads %s null as %s", (comparator, expected) => {
    expect(parseConditionJson({ field: "a", comparator, value: null })).toEqual({ field: "a", comparator: expected });
  });

  it.each(["x", 0, -1.5, true, false, ""])("accepts the scalar value %p", (value) => {
    expect(parseConditionJson({ field: "a", comparator: "EQUALS", value })).toEqual({ field: "a", comparator: "EQUALS", value });
  });

  it("ignores unknown keys", () => {
    expect(parseConditionJson({ field: "a", comparator: "EXISTS", note: 1 })).toEqual({ field: "a", comparator: "EXISTS" });
  });

  it("accepts 32 levels of groups", () => {
    expect(() => parseConditionJson(nestGroups(32))).not.toThrow();
  });

  it("accepts 500 conditions", () => {
    const conditions = Array.from({ length: 500 }, () => ({ field: "a", comparator: "EXISTS" }));
    expect(() => parseConditionJson({ operator: "OR", conditions })).not.toThrow();
  });
});

describe("parseConditionJson errors", () => {
  const ok = { field: "a", comparator: "EQUALS", value: 1 };
  const badField = "condition.field: must be a dot path such as 'metadata.vehicle.id', got";
  const badValue = "condition.value: must be a string, number or boolean, got";
  it.each([
    ["a string", "a = 1", "condition: expected a condition or condition group object"],
    ["a list", [ok], "condition: expected a condition or condition group object"],
    ["an empty object", {}, "condition: expected {field, comparator, value} or {operator, conditions}"],
    [
      "mixed keys",
      { field: "a", operator: "AND" },
      "condition: has both group keys (operator, conditions) and condition keys (field, comparator)",
    ],
    ["empty conditions", { operator: "AND", conditions: [] }, "condition.conditions: must not be empty"],
    ["conditions not a list", { operator: "AND", conditions: ok }, "condition.conditions: must be a list"],
    ["missing operator", { conditions: [ok] }, "condition.operator: must be a non-empty string"],
    ["unknown operator", { operator: "XOR", conditions: [ok] }, "condition.operator: unknown operator 'XOR'"],
    [
      "unknown comparator in a group",
      { operator: "AND", conditions: [ok, { field: "a", comparator: "EQ", value: 1 }] },
      "condition.conditions[1].comparator: unknown comparator 'EQ'",
    ],
    ["missing comparator", { field: "a", value: 1 }, "condition.comparator: must be a non-empty string"],
    ["numeric comparator", { field: "a", comparator: 3 }, "condition.comparator: must be a non-empty string"],
    ["missing field", { comparator: "EXISTS" }, "condition.field: is required"],
    ["empty field", { field: "", comparator: "EXISTS" }, `${badField} ''`],
    ["bad field", { field: "a b", comparator: "EXISTS" }, `${badField} 'a b'`],
    ["field with empty segment", { field: "a..b", comparator: "EXISTS" }, `${badField} 'a..b'`],
    ["field with SQL", { field: "a'; drop", comparator: "EXISTS" }, `${badField} 'a'; drop'`],
    ["a list value", { field: "a", comparator: "EQUALS", value: [1] }, `${badValue} a list`],
    ["an object value", { field: "a", comparator: "EQUALS", value: { x: 1 } }, `${badValue} a value of type object`],
    ["a missing value", { field: "a", comparator: "GREATER_THAN" }, "condition.value: is required for comparator GREATER_THAN"],
    ["a null value for CONTAINS", { field: "a", comparator: "CONTAINS", value: null }, "condition.value: is required for comparator CONTAINS"],
    ["a missing value for EQUALS", { field: "a", comparator: "EQUALS" }, "condition.value: is required for comparator EQUALS"],
    [
      "a deep bad value",
      { operator: "OR", conditions: [ok, { operator: "NOT", conditions: [{ field: "a", comparator: "LIKE", value: [] }] }] },
      "condition.conditions[1].conditions[0].value: must be a string, number or boolean, got a list",
    ],
    ["33 levels of groups", nestGroups(33), `condition${".conditions[0]".repeat(32)}: groups nest deeper than 32 levels`],
  ])("rejects %s", (_, json, message) => {
    expect(errorOf(json)).toBe(message);
  });

  it("rejects more than 500 conditions", () => {
    const conditions = Array.from({ length: 501 }, () => ({ field: "a", comparator: "EXISTS" }));
    expect(errorOf({ operator: "OR", conditions })).toBe("condition.conditions[500]: a query may hold at most 500 conditions");
  });

  it("names the request field it was given", () => {
    expect(() => parseConditionJson({ field: "a", comparator: "NOPE" }, "filter")).toThrow(
      "filter.comparator: unknown comparator 'NOPE'",
    );
  });

  it("throws a ConnectError with code InvalidArgument", () => {
    expect(() => parseConditionJson([])).toThrow(ConnectError);
  });
});
