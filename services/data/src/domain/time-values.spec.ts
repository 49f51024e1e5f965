import { MAX_TIME_NS, nanosecondsEdit, nanosecondsOf, optionalNanoseconds } from "./time-values";

describe("nanosecondsOf", () => {
  test.each<[unknown, bigint]>([
    [1_700_000_000_000_000_000, 1_700_000_000_000_000_000n],
    [1.5, 1_500_000_000n],
    ["1700000000.123456789", 1_700_000_000_123_456_789n],
    ["42", 42_000_000_000n],
    ["2023-11-14T22:13:20.5Z", 1_700_000_000_500_000_000n],
    ["2023-11-14T23:13:20.000000001+01:00", 1_700_000_000_000_000_001n],
    ["9223372036.854775807", MAX_TIME_NS],
    [1_700_000_000_123_456_789n, 1_700_000_000_123_456_789n],
  ])("reads %p as %p ns", (value, expected) => {
    expect(nanosecondsOf(value as never, "anchor_ns", 0n)).toBe(expected);
  });

  test.each<[unknown, string]>([
    [-1, "anchor_ns: must lie between 0 and 2**63 - 1 nanoseconds"],
    ["9223372036.854775808", "anchor_ns: must lie between 0 and 2**63 - 1 nanoseconds"],
    [MAX_TIME_NS + 1n, "anchor_ns: must lie between 0 and 2**63 - 1 nanoseconds"],
    ["tomorrow", "anchor_ns: expected ISO 8601 text such as 2024-01-01T00:00:00.5Z"],
    ["2023-13-40T00:00:00Z", "anchor_ns: expected ISO 8601 text such as 2024-01-01T00:00:00.5Z"],
    [true, "anchor_ns: expected an integer of nanoseconds, a number or numeric string of seconds, or ISO 8601 text"],
    [null, "anchor_ns: expected an integer of nanoseconds, a number or numeric string of seconds, or ISO 8601 text"],
  ])("refuses %p naming the field", (value, message) => {
    expect(() => nanosecondsOf(value as never, "anchor_ns", 0n)).toThrow(message);
  });

  test("the lower bound is the caller's: anchors must lie after the epoch", () => {
    expect(() => nanosecondsOf(0, "anchor_ns", 1n)).toThrow("anchor_ns: must lie between 1 and 2**63 - 1 nanoseconds");
  });
});

describe("optional times and edits", () => {
  test("an absent or null anchor is none; an edit keeps absent apart from null (clear)", () => {
    expect([optionalNanoseconds(undefined, "anchor_ns", 1n), optionalNanoseconds(null, "anchor_ns", 1n), optionalNanoseconds("1", "anchor_ns", 1n)]).toEqual([null, null, 1_000_000_000n]);
    expect([nanosecondsEdit(undefined, "start_time", 0n), nanosecondsEdit(null, "start_time", 0n), nanosecondsEdit(5n, "start_time", 0n)]).toEqual([undefined, null, 5n]);
    expect(() => nanosecondsEdit(-1n, "start_time", 0n)).toThrow("start_time: must lie between 0 and 2**63 - 1 nanoseconds");
  });
});
