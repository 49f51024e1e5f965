import { activityBuckets, planActivity, type ActivitySource } from "./invocation-activity";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const window = (fromMinutes: number, toMinutes: number) => ({ start: new Date(at(fromMinutes)), end: new Date(at(toMinutes)) });

/** An invocation that went through `moves` ([minute, status] pairs) on `vCPU` units. */
const source = (moves: [number, number][], vCPU = 1024): ActivitySource => ({
  statusHistory: moves.map(([minute, status]) => ({ status, detail: null, timestamp: at(minute) })),
  vCPU,
});

describe("planActivity", () => {
  it("starts a bucket every period from the window's start, the last cut at the end", () => {
    const plan = planActivity(window(0, 150), "1h");
    expect(plan.starts.map((d) => d.toISOString())).toEqual([at(0), at(60), at(120)]);
    expect(plan).toMatchObject({ period: "1h", periodMs: 3_600_000 });
  });

  it("defaults to 1h", () => {
    expect(planActivity(window(0, 60), undefined).period).toBe("1h");
    expect(planActivity(window(0, 60), "").period).toBe("1h");
  });

  it("refuses other periods and more than 1000 buckets, naming period", () => {
    expect(() => planActivity(window(0, 60), "2h")).toThrow("period: must be one of 1m, 5m, 15m, 1h, 1d, got '2h'");
    expect(() => planActivity(window(0, 1001), "1m")).toThrow("period: gives 1001 buckets");
    expect(planActivity(window(0, 1000), "1m").starts).toHaveLength(1000);
  });

  it("an empty window has no buckets", () => {
    expect(planActivity(window(5, 5), "1m").starts).toEqual([]);
  });
});

describe("activityBuckets", () => {
  const now = new Date(at(1000));

  it("counts entries per bucket and holds statuses between entries", () => {
    const buckets = activityBuckets([source([[0, 0], [10, 1], [20, 3], [30, 5]])], planActivity(window(0, 60), "15m"), now);
    expect(buckets.map((b) => b.enteredStatus)).toEqual([{ Queued: 1, Scheduled: 1 }, { Processing: 1 }, { Completed: 1 }, {}]);
    expect(buckets.map((b) => b.peakInStatus)).toEqual([{ Queued: 1, Scheduled: 1 }, { Scheduled: 1, Processing: 1 }, {}, {}]);
    expect(buckets.map((b) => b.peakConcurrency)).toEqual([1, 1, 0, 0]);
  });

  it("peaks count invocations in a status at the same time, not one after the other", () => {
    const overlapping = [source([[0, 0], [10, 3], [20, 5]]), source([[0, 0], [15, 3], [25, 998]])];
    const sequential = [source([[0, 0], [10, 3], [20, 5]]), source([[0, 0], [20, 3], [30, 5]])];
    const plan = planActivity(window(0, 60), "1h");
    expect(activityBuckets(overlapping, plan, now)[0]).toMatchObject({ peakInStatus: { Queued: 2, Processing: 2 }, peakConcurrency: 2 });
    // The second enters Processing the moment the first leaves it: intervals are half-open.
    expect(activityBuckets(sequential, plan, now)[0]).toMatchObject({ peakInStatus: { Queued: 2, Processing: 1 }, peakConcurrency: 1 });
  });

  it("an invocation that has not ended holds its status until now", () => {
    const buckets = activityBuckets([source([[0, 0], [10, 3]])], planActivity(window(0, 60), "15m"), new Date(at(40)));
    expect(buckets.map((b) => b.peakConcurrency)).toEqual([1, 1, 1, 0]);
  });

  it("an invocation active since before the window counts from the window's start", () => {
    const [bucket] = activityBuckets([source([[-100, 0], [-50, 2], [30, 5]])], planActivity(window(0, 60), "1h"), now);
    expect(bucket).toEqual({
      periodStart: new Date(at(0)),
      peakInStatus: { Downloading: 1 },
      peakConcurrency: 1,
      enteredStatus: { Completed: 1 },
      computeCreditMillionths: 30 * 60 * 1_000_000,
    });
  });

  it("a re-stated status is held without a gap; terminal statuses are entered but not held", () => {
    const [bucket] = activityBuckets([source([[0, 0], [10, 1], [10, 1], [20, 998]])], planActivity(window(0, 60), "1h"), now);
    expect(bucket).toMatchObject({ enteredStatus: { Queued: 1, Scheduled: 2, Failed: 1 }, peakInStatus: { Queued: 1, Scheduled: 1 }, peakConcurrency: 1 });
  });

  it("compute credit is running time x vCPUs, split across buckets, in millionths of a vCPU-second", () => {
    const buckets = activityBuckets([source([[0, 0], [5, 1], [25, 5]], 512), source([[0, 0], [10, 4], [12, 997]], 2048)], planActivity(window(0, 30), "15m"), now);
    // First: 20 minutes at half a vCPU (10 in each bucket); second: 2 minutes at 2 vCPUs (first bucket).
    expect(buckets.map((b) => b.computeCreditMillionths)).toEqual([(10 * 60 * 0.5 + 2 * 60 * 2) * 1_000_000, 10 * 60 * 0.5 * 1_000_000]);
  });

  it("rounds the credit once per bucket", () => {
    const oneMs = { statusHistory: [{ status: 3, detail: null, timestamp: at(0) }, { status: 5, detail: null, timestamp: new Date(T0 + 1).toISOString() }], vCPU: 1 };
    // 1 ms x 1 unit = 1000/1024 millionths, rounded to 1.
    expect(activityBuckets([oneMs], planActivity(window(0, 1), "1m"), now)[0]!.computeCreditMillionths).toBe(1);
  });
});
