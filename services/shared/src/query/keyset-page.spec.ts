import { planKeysetPage } from "./keyset-page";

describe("keyset pages", () => {
  it("starts at the top with the default size", () => {
    const page = planKeysetPage(undefined, undefined, "org:a");
    expect({ limit: page.limit, before: page.before }).toEqual({ limit: 1000, before: undefined });
  });

  it("reads back the last key a token carries", () => {
    const token = planKeysetPage(2n, undefined, "org:a").nextToken(41, true)!;
    expect(planKeysetPage(2n, token, "org:a").before).toBe(41);
  });

  it("gives no token for the last page", () => {
    expect(planKeysetPage(2n, undefined, "org:a").nextToken(41, false)).toBeUndefined();
  });

  it("refuses a token of another listing and a bad page size, naming the parameter", () => {
    const token = planKeysetPage(2n, undefined, "org:a").nextToken(41, true)!;
    expect(() => planKeysetPage(2n, token, "org:b")).toThrow(/^\[invalid_argument\] page_token: /);
    expect(() => planKeysetPage(0n, undefined, "org:a")).toThrow(/^\[invalid_argument\] page_size: /);
  });
});
