import { Code, ConnectError } from "@connectrpc/connect";
import { MAX_JSON_DEPTH, readJsonBody } from "./read-json-body";

describe("readJsonBody", () => {
  const cases: [string, unknown][] = [
    ['{"a":1}', { a: 1 }],
    ["[1, 2.5, -3]", [1, 2.5, -3]],
    ['{"n": 9223372036854775807}', { n: 9223372036854775807n }],
    ['{"n": -9223372036854775808}', { n: -9223372036854775808n }],
    ['{"n": 18446744073709551615}', { n: 18446744073709551615n }],
    ['{"n": 9007199254740991}', { n: 9007199254740991 }],
    ['{"n": 9007199254740993}', { n: 9007199254740993n }],
    ['{"n": 12345678901234567890.5}', { n: 12345678901234567890.5 }],
    ['{"n": 1e300, "s": "12345678901234567890"}', { n: 1e300, s: "12345678901234567890" }],
    ['{"nested": {"list": [99999999999999999999]}}', { nested: { list: [99999999999999999999n] } }],
    // Past 20 digits no integer field can hold it: it stays a double rather than a costly BigInt.
    ['{"n": 123456789012345678901}', { n: 123456789012345678901 }],
    ["null", null],
    ['"text"', "text"],
    ["", undefined],
    ["  \n ", undefined],
  ];
  it.each(cases)("parses %s", (text, expected) => {
    expect(readJsonBody(text)).toEqual(expected);
  });

  it("keeps a __proto__ key as data", () => {
    const parsed = readJsonBody('{"__proto__": {"x": 1}, "y": 12345678901234567890}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(["__proto__", "y"]);
  });

  it.each(["{", "{'a': 1}", '{"a": 1,}', "[01]", "NaN", '{"a": 12345678901234567890,}', "{a: 1}"])(
    "rejects %s with a 400",
    (text) => {
      let error: unknown;
      try {
        readJsonBody(text);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConnectError);
      expect((error as ConnectError).code).toBe(Code.InvalidArgument);
      expect((error as ConnectError).rawMessage).toMatch(/^malformed JSON: /);
    },
  );

  it("accepts nesting up to MAX_JSON_DEPTH levels", () => {
    const text = '{"a":'.repeat(MAX_JSON_DEPTH - 1) + "[1]" + "}".repeat(MAX_JSON_DEPTH - 1);
    expect(() => readJsonBody(text)).not.toThrow();
  });

  it.each([
    ["objects", '{"a":'.repeat(MAX_JSON_DEPTH + 1) + "1" + "}".repeat(MAX_JSON_DEPTH + 1)],
    ["arrays", "[".repeat(100_000) + "]".repeat(100_000)],
    ["arrays around a long integer", "[".repeat(100_000) + "99999999999999999999" + "]".repeat(100_000)],
  ])("refuses %s nested deeper than MAX_JSON_DEPTH with a 400", (_kind, text) => {
    let error: unknown;
    try {
      readJsonBody(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    expect((error as ConnectError).rawMessage).toBe(`request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  });
});
