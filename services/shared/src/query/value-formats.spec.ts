import { isDecimalString, normalizeIsoTimestamp, parseIsoTimestamp } from "./value-formats";

describe("normalizeIsoTimestamp", () => {
  it.each([
    ["2025-04-05", "2025-04-05T00:00:00Z"],
    ["2024-02-29", "2024-02-29T00:00:00Z"],
    ["2025-04-05T10:20", "2025-04-05T10:20Z"],
    ["2025-04-05T10:20:30", "2025-04-05T10:20:30Z"],
    ["2025-04-05 10:20:30.123456", "2025-04-05 10:20:30.123456Z"],
    ["2025-04-05T10:20:30Z", "2025-04-05T10:20:30Z"],
    ["2025-04-05T10:20:30.5+02:00", "2025-04-05T10:20:30.5+02:00"],
    ["2025-04-05T10:20:30-0530", "2025-04-05T10:20:30-0530"],
    [" 2025-04-05 ", "2025-04-05T00:00:00Z"],
  ])("%p gives %p", (value, expected) => {
    expect(normalizeIsoTimestamp(value)).toBe(expected);
  });

  it.each(["", "yesterday", "2025-4-5", "2025-02-29", "2025-13-01", "2025-04-31", "0000-01-01", "2025-04-05T24:00", "2025-04-05T10:60", "2025-04-05T10:20+16:00", "2025-04-05Tfoo", "1743811200"])(
    "rejects %p",
    (value) => {
      expect(normalizeIsoTimestamp(value)).toBeUndefined();
    },
  );
});

describe("isDecimalString", () => {
  it.each(["0", "10", "-3", "+3", "12.50", ".5", "5.", "1e6", "-1.5E-3"])("accepts %p", (value) => {
    expect(isDecimalString(value)).toBe(true);
  });

  it.each(["", "abc", "1,5", "1e", "1e1000", "--1", "0x10", "NaN", "Infinity", " 1"])("rejects %p", (value) => {
    expect(isDecimalString(value)).toBe(false);
  });
});

describe("parseIsoTimestamp", () => {
  it.each([
    ["2026-03-04", "2026-03-04T00:00:00.000Z"],
    ["2026-03-04T05:06:07Z", "2026-03-04T05:06:07.000Z"],
    ["2026-03-04T05:06:07.5Z", "2026-03-04T05:06:07.500Z"],
    ["2026-03-04T05:06:07.123456789Z", "2026-03-04T05:06:07.123Z"],
    ["2026-03-04T05:06", "2026-03-04T05:06:00.000Z"],
    ["2026-03-04 05:06:07+02", "2026-03-04T03:06:07.000Z"],
    ["2026-03-04T05:06:07+0200", "2026-03-04T03:06:07.000Z"],
    ["2026-03-04T05:06:07-01:30", "2026-03-04T06:36:07.000Z"],
  ])("reads %s (a missing zone is UTC)", (text, iso) => {
    expect(parseIsoTimestamp(text, "start_time").toISOString()).toBe(iso);
  });

  it.each(["", "yesterday", "2026-02-30", "2026-13-01", "2026-03-04T25:00:00Z", "1700000000"])("refuses %p naming the field", (text) => {
    expect(() => parseIsoTimestamp(text, "created_before")).toThrow(`created_before: must be an ISO 8601 date-time, got '${text}'`);
  });
});
