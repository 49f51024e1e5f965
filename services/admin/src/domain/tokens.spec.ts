import { expiryFrom, hashSecret, isUsable, MAX_EXPIRY_DAYS, newTokenSecret, parseApiScopes } from "./tokens";

const now = new Date("2026-01-01T00:00:00Z");

describe("expiryFrom", () => {
  test("a token expires exactly `expiry_days` days after it is created", () => {
    expect(expiryFrom(1n, now)).toEqual(new Date("2026-01-02T00:00:00Z"));
    expect(expiryFrom(BigInt(MAX_EXPIRY_DAYS), now).getTime() - now.getTime()).toBe(MAX_EXPIRY_DAYS * 86_400_000);
  });

  test.each([0n, -1n, BigInt(MAX_EXPIRY_DAYS) + 1n, 2n ** 63n - 1n])("%p days is a 400 naming expiry_days", (days) => {
    expect(() => expiryFrom(days, now)).toThrow(/^\[invalid_argument\] expiry_days: must be from 1 to 3650$/);
  });
});

describe("isUsable", () => {
  test("an enabled token without expiry is usable", () => {
    expect(isUsable({ enabled: true, expires: null }, now)).toBe(true);
  });

  test("a disabled token is not, even unexpired", () => {
    expect(isUsable({ enabled: false, expires: new Date(now.getTime() + 1000) }, now)).toBe(false);
  });

  test("a token is unusable from the instant it expires", () => {
    expect(isUsable({ enabled: true, expires: new Date(now.getTime() + 1) }, now)).toBe(true);
    expect(isUsable({ enabled: true, expires: now }, now)).toBe(false);
  });
});

describe("parseApiScopes", () => {
  test("keeps each known scope once, in first-seen order; empty stays empty (unrestricted)", () => {
    expect(parseApiScopes(["files.upload", "datasets.create", "files.upload"])).toEqual(["files.upload", "datasets.create"]);
    expect(parseApiScopes([])).toEqual([]);
  });

  test("an unknown scope is a 400 naming the field and index", () => {
    expect(() => parseApiScopes(["files.upload", "everything"])).toThrow(/^\[invalid_argument\] api_scopes\[1\]: unknown scope 'everything'/);
  });
});

describe("secrets", () => {
  test("a new secret is `hgr_` and 32 random bytes; only its SHA-256 is stored", () => {
    const secret = newTokenSecret();
    expect(secret).toMatch(/^hgr_[A-Za-z0-9_-]{43}$/);
    expect(newTokenSecret()).not.toBe(secret);
    expect(hashSecret("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
