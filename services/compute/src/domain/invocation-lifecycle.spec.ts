import type { InvocationRecord } from "./records";
import { cancelInvocation, checkDeletable, moveInvocation, recordHeartbeat } from "./invocation-lifecycle";

const created = new Date("2026-01-01T00:00:00Z");
const later = (seconds: number) => new Date(created.getTime() + seconds * 1000);

/** A Queued invocation, optionally leased by a runner. */
function invocation(overrides: Partial<InvocationRecord> = {}): InvocationRecord {
  return {
    invocationId: "iv_1",
    lastStatus: 0,
    statusHistory: [{ status: 0, detail: null, timestamp: created.toISOString() }],
    created,
    started: null,
    finished: null,
    lastHeartbeat: null,
    leaseId: null,
    leaseRunner: null,
    leaseExpires: null,
    ...overrides,
  } as InvocationRecord;
}

describe("moveInvocation", () => {
  it("appends the entry, stamps started on the first running status and keeps the lease while running", () => {
    const row = invocation({ leaseId: "ls_1", leaseRunner: "r1", leaseExpires: later(60) });
    moveInvocation(row, 1, "claimed", later(1));
    moveInvocation(row, 3, "processing", later(2));
    expect(row).toMatchObject({ lastStatus: 3, started: later(1), finished: null, leaseId: "ls_1", leaseRunner: "r1" });
    expect(row.statusHistory.slice(1)).toEqual([
      { status: 1, detail: "claimed", timestamp: later(1).toISOString() },
      { status: 3, detail: "processing", timestamp: later(2).toISOString() },
    ]);
  });

  it("keeps a runner's earlier claim time", () => {
    const row = invocation({ started: later(5) });
    moveInvocation(row, 2, null, later(9));
    expect(row.started).toEqual(later(5));
  });

  it("entering a terminal status stamps finished and releases the lease; a retry clears finished", () => {
    const row = invocation({ lastStatus: 3, leaseId: "ls_1", leaseRunner: "r1", leaseExpires: later(60) });
    moveInvocation(row, 998, "crashed", later(10));
    expect(row).toMatchObject({ lastStatus: 998, finished: later(10), leaseId: null, leaseRunner: null, leaseExpires: null });
    moveInvocation(row, 0, "retry", later(11));
    expect(row).toMatchObject({ lastStatus: 0, finished: null });
  });

  it.each([
    [5, 3, "cannot move invocation from Completed to Processing"],
    [997, 0, "cannot move invocation from Cancelled to Queued"],
    [999, 998, "cannot move invocation from Deadly to Failed"],
    [998, 5, "cannot move invocation from Failed to Completed"],
    [3, 999, "cannot move invocation from Processing to Deadly"],
    [3, 1, "cannot move invocation from Processing to Scheduled"],
  ])("refuses %p -> %p and changes nothing", (from, to, message) => {
    const row = invocation({ lastStatus: from });
    expect(() => moveInvocation(row, to, null)).toThrow(message);
    expect(row.statusHistory).toHaveLength(1);
    expect(row.lastStatus).toBe(from);
  });
});

describe("cancelInvocation", () => {
  it("cancels on behalf of the user, once", () => {
    const row = invocation();
    cancelInvocation(row, "ann@example.com", later(1));
    cancelInvocation(row, "bob@example.com", later(2));
    expect(row.statusHistory.map((s) => s.detail)).toEqual([null, "cancelled by ann@example.com"]);
    expect(row.finished).toEqual(later(1));
  });

  it("refuses an invocation that ended otherwise", () => {
    expect(() => cancelInvocation(invocation({ lastStatus: 5 }), "ann")).toThrow("cannot move invocation from Completed to Cancelled");
  });
});

describe("heartbeats and deletes", () => {
  it("a heartbeat is recorded while the invocation runs and refused once it ended", () => {
    const row = invocation({ lastStatus: 3 });
    recordHeartbeat(row, later(3));
    expect(row.lastHeartbeat).toEqual(later(3));
    expect(() => recordHeartbeat(invocation({ lastStatus: 998 }))).toThrow("invocation iv_1 is Failed: heartbeats are only accepted while it runs");
  });

  it("only an ended invocation may be deleted", () => {
    expect(() => checkDeletable(invocation({ lastStatus: 4 }))).toThrow("invocation iv_1 is Uploading: cancel it first");
    expect(() => checkDeletable(invocation({ lastStatus: 999 }))).not.toThrow();
  });
});
