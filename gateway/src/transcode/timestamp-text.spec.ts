import { formatDuration, parseDuration } from "./duration-text";
import { formatTimestamp, parseTimestamp } from "./timestamp-text";

describe("parseTimestamp", () => {
  const valid: [string, bigint, number][] = [
    ["1970-01-01T00:00:00Z", 0n, 0],
    ["2026-11-21T07:16:15.123Z", 1795245375n, 123_000_000],
    ["2026-11-21T09:16:15.123456789+02:00", 1795245375n, 123_456_789],
    ["2026-11-21T02:16:15-0500", 1795245375n, 0],
    ["2026-11-21 07:16:15z", 1795245375n, 0],
    ["2026-11-21T07:16Z", 1795245360n, 0],
    ["2026-11-21", 1795219200n, 0],
    ["2024-02-29T00:00:00Z", 1709164800n, 0],
    ["0001-01-01T00:00:00Z", -62135596800n, 0],
    ["1969-12-31T23:59:59.5Z", -1n, 500_000_000],
    ["2026-11-21T07:16:15.1234567891Z", 1795245375n, 123_456_789],
  ];
  it.each(valid)("parses %s", (text, seconds, nanos) => {
    expect(parseTimestamp(text)).toEqual({ seconds, nanos });
  });

  it.each([
    "2026-11-21T07:16:15",
    "2026-11-21T07:16:15.123",
    "2026-13-01",
    "2026-02-29",
    "2026-04-31T00:00:00Z",
    "2026-11-21T24:00:00Z",
    "2026-11-21T07:60:00Z",
    "0000-01-01",
    "21-11-2026",
    "yesterday",
    "",
    "2026-11-21T07:16:15+25:00",
  ])("rejects %s", (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
  });
});

describe("formatTimestamp", () => {
  const cases: [bigint, number, string][] = [
    [0n, 0, "1970-01-01T00:00:00.000Z"],
    [1795245375n, 123_456_789, "2026-11-21T07:16:15.123Z"],
    [-1n, 500_000_000, "1969-12-31T23:59:59.500Z"],
    [253402300799n, 999_999_999, "9999-12-31T23:59:59.999Z"],
  ];
  it.each(cases)("formats %s s %s ns", (seconds, nanos, text) => {
    expect(formatTimestamp(seconds, nanos)).toBe(text);
  });
});

describe("durations", () => {
  const cases: [string, bigint, number, string][] = [
    ["1s", 1n, 0, "1s"],
    ["1.5s", 1n, 500_000_000, "1.500s"],
    ["-0.000001s", 0n, -1000, "-0.000001s"],
    ["-2.000000003s", -2n, -3, "-2.000000003s"],
    ["315576000000s", 315576000000n, 0, "315576000000s"],
  ];
  it.each(cases)("parses and formats %s", (text, seconds, nanos, formatted) => {
    expect(parseDuration(text)).toEqual({ seconds, nanos });
    expect(formatDuration(seconds, nanos)).toBe(formatted);
  });

  it.each(["1", "1.5", "s", "1.0000000001s", "315576000001s", "+1s"])("rejects %s", (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});
