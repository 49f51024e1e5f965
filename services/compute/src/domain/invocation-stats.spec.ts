import { countByStatusName, epochWindow, isoWindow, queuedWorkSeconds, summaryLimit } from "./invocation-stats";

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
