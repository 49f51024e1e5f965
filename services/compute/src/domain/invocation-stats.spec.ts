import { countByStatusName, epochWindow, isoWindow, parseIsoTime, queuedWorkSeconds, summaryLimit } from "./invocation-stats";

describe("parseIsoTime", () => {
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
    expect(parseIsoTime(text, "start_time").toISOString()).toBe(iso);
  });

  it.each(["", "yesterday", "2026-02-30", "2026-13-01", "2026-03-04T25:00:00Z", "1700000000"])("refuses %p naming the field", (text) => {
    expect(() => parseIsoTime(text, "created_before")).toThrow(`created_before: must be an ISO 8601 date-time, got '${text}'`);
  });
});

describe("isoWindow", () => {
  it("requires both bounds and an end not before the start", () => {
    expect(() => isoWindow("", "2026-01-01")).toThrow("start_time: is required");
    expect(() => isoWindow("2026-01-01", "")).toThrow("end_time: is required");
    expect(() => isoWindow("2026-01-02", "2026-01-01")).toThrow("end_time: must not be before start_time");
    expect(isoWindow("2026-01-01", "2026-01-01").end.toISOString()).toBe("2026-01-01T00:00:00.000Z");
  });
});

describe("epochWindow", () => {
  const now = new Date("2026-06-01T00:00:00Z");

  it("defaults to the 30 days before now, or before the given end", () => {
    expect(epochWindow(undefined, undefined, now)).toEqual({ start: new Date("2026-05-02T00:00:00Z"), end: now });
    expect(epochWindow(undefined, 86_400 * 31, now)).toEqual({ start: new Date(86_400_000), end: new Date(86_400_000 * 31) });
    expect(epochWindow(0, undefined, now)).toEqual({ start: new Date(0), end: now });
  });

  it("refuses an end before the start and times out of range", () => {
    expect(() => epochWindow(100, 50, now)).toThrow("end_time: must not be before start_time");
    expect(() => epochWindow(1e20, undefined, now)).toThrow("start_time: must be seconds since the Unix epoch");
  });
});

describe("summaryLimit", () => {
  it("defaults to 100 and accepts 1 to 1000", () => {
    expect([summaryLimit(undefined), summaryLimit(1n), summaryLimit(1000n)]).toEqual([100, 1, 1000]);
    expect(() => summaryLimit(0n)).toThrow("limit: must be from 1 to 1000, got 0");
    expect(() => summaryLimit(1001n)).toThrow("limit: must be from 1 to 1000, got 1001");
  });
});

describe("queue figures", () => {
  it("names every status, with 0 for those without invocations", () => {
    expect(countByStatusName(new Map([[0, 2], [998, 1]]))).toEqual({
      Queued: 2, Scheduled: 0, Downloading: 0, Processing: 0, Uploading: 0, Completed: 0, Cancelled: 0, Failed: 1, Deadly: 0,
    });
  });

  it("estimates queued work only with a median", () => {
    expect(queuedWorkSeconds(3, 12.5)).toBe(37.5);
    expect(queuedWorkSeconds(3, null)).toBe(0);
  });
});
