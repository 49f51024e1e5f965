import { Code, ConnectError } from "@connectrpc/connect";
import { decodePageToken, encodePageToken, queryFingerprint } from "./page-token";

const condition = { field: "name", comparator: "EQUALS", value: "x" } as const;
const fingerprint = queryFingerprint({ condition, sortBy: "name", sortDirection: "ASC" });

function errorOf(token: string): string {
  try {
    decodePageToken(token, fingerprint);
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.InvalidArgument) return err.rawMessage;
    throw err;
  }
  throw new Error(`no error for ${token}`);
}

describe("page tokens", () => {
  it.each([0, 1000, 123_456_789])("round-trips offset %p", (offset) => {
    expect(decodePageToken(encodePageToken(offset, fingerprint), fingerprint)).toBe(offset);
  });

  it("encodes as base64url", () => {
    expect(encodePageToken(1000, fingerprint)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([undefined, null, "", "None"])("reads %p as the first page", (token) => {
    expect(decodePageToken(token, fingerprint)).toBe(0);
  });

  it.each([
    ["not base64", "not a token!"],
    ["not JSON", Buffer.from("hello").toString("base64url")],
    ["a JSON scalar", Buffer.from("5").toString("base64url")],
    ["a negative offset", Buffer.from(JSON.stringify({ o: -1, f: fingerprint })).toString("base64url")],
    ["a fractional offset", Buffer.from(JSON.stringify({ o: 1.5, f: fingerprint })).toString("base64url")],
    ["no fingerprint", Buffer.from(JSON.stringify({ o: 5 })).toString("base64url")],
  ])("rejects %s", (_, token) => {
    expect(errorOf(token)).toBe("after: is not a valid page token");
  });

  it("rejects a token made for another query", () => {
    const other = queryFingerprint({ condition, sortBy: "name", sortDirection: "DESC" });
    expect(errorOf(encodePageToken(1000, other))).toBe(
      "after: page token belongs to a different query (the condition or sort changed)",
    );
  });

  it("names the request field it was given", () => {
    expect(() => decodePageToken("%%%", fingerprint, "page_token")).toThrow("page_token: is not a valid page token");
  });

  it("refuses to encode a negative offset", () => {
    expect(() => encodePageToken(-1, fingerprint)).toThrow("invalid page offset -1");
  });
});

describe("queryFingerprint", () => {
  it("is a short base64url string", () => {
    expect(fingerprint).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it("applies the sort defaults", () => {
    expect(queryFingerprint({})).toBe(queryFingerprint({ condition: null, sortBy: "created", sortDirection: "desc" }));
  });

  it("ignores key order in the condition", () => {
    const reordered = { value: "x", comparator: "EQUALS", field: "name" } as const;
    expect(queryFingerprint({ condition: reordered, sortBy: "name", sortDirection: "ASC" })).toBe(fingerprint);
  });

  it.each([
    ["condition", { condition: { ...condition, value: "y" }, sortBy: "name", sortDirection: "ASC" }],
    ["sort field", { condition, sortBy: "created", sortDirection: "ASC" }],
    ["direction", { condition, sortBy: "name", sortDirection: "DESC" }],
    ["scope", { condition, sortBy: "name", sortDirection: "ASC", scope: "ds_1" }],
  ])("changes with the %s", (_, query) => {
    expect(queryFingerprint(query)).not.toBe(fingerprint);
  });
});
