import { checkPatterns, rulePathMatches } from "./ingestion-rule-paths";
import { runOf } from "./ingestion-runs";

describe("rulePathMatches", () => {
  const rule = { includePatterns: ["**/*.bag", "runs/run_?.mcap"], excludePatterns: ["scratch/**"] };
  test.each([
    ["a.bag", true],
    ["x/y/z.bag", true],
    ["runs/run_1.mcap", true],
    ["runs/run_10.mcap", false],
    ["other/run_1.mcap", false],
    ["scratch/a.bag", false],
    [".hidden.bag", false],
    ["x/.cache/a.bag", false],
    ["a.bagx", false],
  ])("%s: %s", (path, expected) => {
    expect(rulePathMatches(rule, path)).toBe(expected);
  });
});

describe("checkPatterns", () => {
  test("include patterns need one that is not blank; none may be blank or negated", () => {
    expect(() => checkPatterns([], "include_patterns")).toThrow("include_patterns: must list at least one pattern");
    expect(() => checkPatterns(["*.bag", " "], "include_patterns")).toThrow("include_patterns[1]: must not be blank");
    expect(() => checkPatterns(["!*.bag"], "exclude_patterns")).toThrow("exclude_patterns[0]: starts with '!'");
    expect(checkPatterns([], "exclude_patterns")).toEqual([]);
  });
});

describe("runOf", () => {
  const row = { fileId: "fl_1", ruleId: "ir_1", triggerId: "tr_1", claimedAt: new Date(0), dispatchStatus: "dispatched", dispatchDetail: null, invocationId: "iv_1", invocationStatus: 3, invocationDetail: null };
  test("a dispatch that could not start the action failed with its reason", () => {
    expect(runOf({ ...row, dispatchStatus: "failed", dispatchDetail: "no such action", invocationId: null, invocationStatus: null })).toMatchObject({ status: "failed", detail: "no such action", invocationId: null });
  });
  test("the invocation says how the run stands", () => {
    expect(runOf(row)).toMatchObject({ status: "running", detail: null });
    expect(runOf({ ...row, dispatchStatus: "claimed", invocationId: null, invocationStatus: null })).toMatchObject({ status: "running" });
    expect(runOf({ ...row, invocationStatus: 5 })).toMatchObject({ status: "finished" });
    expect(runOf({ ...row, invocationStatus: 998, invocationDetail: "exit 3" })).toMatchObject({ status: "failed", detail: "exit 3" });
    expect(runOf({ ...row, invocationStatus: 997, invocationDetail: "cancelled" })).toMatchObject({ status: "failed", detail: "cancelled" });
  });
});
