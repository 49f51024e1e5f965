import { resolveLimit } from "./resolve-limit";

describe("resolveLimit", () => {
  it.each([
    [undefined, 1000],
    [null, 1000],
    [1, 1],
    [250, 250],
    [1000, 1000],
    [1001, 1000],
    [Number.MAX_SAFE_INTEGER, 1000],
    [5n, 5],
    [10_000_000_000n, 1000],
  ])("%p gives %p", (limit, expected) => {
    expect(resolveLimit(limit)).toBe(expected);
  });

  it.each([
    [0, "limit: must be at least 1, got 0"],
    [-5, "limit: must be at least 1, got -5"],
    [0n, "limit: must be at least 1, got 0"],
    [2.5, "limit: must be an integer, got 2.5"],
    [Number.NaN, "limit: must be an integer, got NaN"],
  ])("rejects %p", (limit, message) => {
    expect(() => resolveLimit(limit)).toThrow(message);
  });

  it("names the request field it was given", () => {
    expect(() => resolveLimit(0, "max_results")).toThrow("max_results: must be at least 1, got 0");
  });
});
