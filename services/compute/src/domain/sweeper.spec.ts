import type { InvocationRecord } from "./records";
import { leaseSettings } from "./leases";
import { sweepInvocation } from "./sweeper";

const created = new Date("2026-01-01T00:00:00Z");
const at = (seconds: number) => new Date(created.getTime() + seconds * 1000);
const settings = leaseSettings({ leaseMs: 30_000, heartbeatTimeoutMs: 120_000 });

/** A Scheduled invocation claimed at second 0 by runner r1, lease until second 30, timeout 600 s. */
function claimed(overrides: Partial<InvocationRecord> = {}): InvocationRecord {
  return {
    invocationId: "iv_1",
    lastStatus: 1,
    statusHistory: [
      { status: 0, detail: null, timestamp: created.toISOString() },
      { status: 1, detail: "claimed by runner r1", timestamp: created.toISOString() },
    ],
    created,
    started: created,
    finished: null,
    timeout: 600,
    lastHeartbeat: null,
    leaseId: "ls_1",
    leaseRunner: "r1",
    leaseExpires: at(30),
    attempts: 1,
    ...overrides,
  } as InvocationRecord;
}

const moves = (row: InvocationRecord) => row.statusHistory.slice(2).map((e) => [e.status, e.detail]);

describe("sweepInvocation", () => {
  it("leaves an invocation whose lease holds and whose timeout is ahead", () => {
    const row = claimed();
    expect(sweepInvocation(row, settings, at(29))).toBe(false);
    expect(row.statusHistory).toHaveLength(2);
  });

  it("queues again an invocation whose lease lapsed, clearing the lease", () => {
    const row = claimed();
    expect(sweepInvocation(row, settings, at(31))).toBe(true);
    expect(moves(row)).toEqual([
      [998, "runner r1 lost its lease"],
      [0, "retry 1"],
    ]);
    expect(row).toMatchObject({ lastStatus: 0, finished: null, leaseId: null, leaseRunner: null, leaseExpires: null, started: created });
  });

  it("fails an invocation whose lease lapsed on its third claim", () => {
    const row = claimed({ attempts: 3 });
    sweepInvocation(row, settings, at(31));
    expect(moves(row)).toEqual([[998, "lost its runner 3 times"]]);
    expect(row).toMatchObject({ lastStatus: 998, finished: at(31), leaseId: null });
  });

  it("fails an invocation past its timeout (in minutes), before looking at its lease", () => {
    const row = claimed({ leaseExpires: at(400), timeout: 5 });
    expect(sweepInvocation(row, settings, at(299))).toBe(false);
    sweepInvocation(row, settings, at(301));
    expect(moves(row)).toEqual([[998, "timed out after 5 min"]]);
    expect(row.leaseId).toBeNull();
  });

  it("fails a running invocation without a lease once its heartbeats stop", () => {
    const row = claimed({ lastStatus: 3, leaseId: null, leaseRunner: null, leaseExpires: null, lastHeartbeat: at(10) });
    expect(sweepInvocation(row, settings, at(130))).toBe(false);
    expect(sweepInvocation(row, settings, at(131))).toBe(true);
    expect(moves(row)).toEqual([[998, `no heartbeat since ${at(10).toISOString()}`]]);
  });

  it("leaves a queued invocation without a lease alone, and a finished one", () => {
    expect(sweepInvocation(claimed({ lastStatus: 0, started: null, leaseId: null, leaseExpires: null }), settings, at(1000))).toBe(false);
    expect(sweepInvocation(claimed({ lastStatus: 5, leaseId: null, leaseExpires: null }), settings, at(1000))).toBe(false);
  });
});
