import { checkGroupSpec } from "./invocation-grouping";

describe("checkGroupSpec", () => {
  it("defaults the limit to 20 and drops repeated statuses and dimensions", () => {
    expect(checkGroupSpec([0, 0, 998], ["action", "source", "action"], undefined)).toEqual({ statuses: [0, 998], dimensions: ["action", "source"], limit: 20 });
    expect(checkGroupSpec([5], ["submitter"], 100n).limit).toBe(100);
  });

  it.each<[number[], string[], bigint | undefined, string]>([
    [[], ["action"], undefined, "statuses: must list at least one InvocationStatus"],
    [[0, 7], ["action"], undefined, "statuses[1]: must be an InvocationStatus"],
    [[0], [], undefined, "group_by: must list at least one of action, source, submitter"],
    [[0], ["action", "user"], undefined, "group_by[1]: must be one of action, source, submitter, got 'user'"],
    [[0], ["action"], 0n, "limit: must be from 1 to 100, got 0"],
    [[0], ["action"], 101n, "limit: must be from 1 to 100, got 101"],
  ])("refuses %p by %p (limit %p)", (statuses, groupBy, limit, message) => {
    expect(() => checkGroupSpec(statuses, groupBy, limit)).toThrow(message);
  });
});
