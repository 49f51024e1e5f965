import { verifyInvocationToken } from "@hangar/shared";
import type { InvocationRecord } from "./records";
import { checkClaim, grantLease, invocationApiKey, leaseSettings, renewLease } from "./leases";

const now = new Date("2026-01-01T00:00:00Z");
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const settings = leaseSettings();

function queued(overrides: Partial<InvocationRecord> = {}): InvocationRecord {
  return {
    invocationId: "iv_1",
    orgId: "og_1",
    createdBy: "alice",
    lastStatus: 0,
    statusHistory: [{ status: 0, detail: null, timestamp: now.toISOString() }],
    created: now,
    started: null,
    finished: null,
    timeout: 600,
    lastHeartbeat: null,
    leaseId: null,
    leaseRunner: null,
    leaseExpires: null,
    attempts: 0,
    ...overrides,
  } as InvocationRecord;
}

describe("leaseSettings", () => {
  it("defaults to 30 s leases, a 120 s heartbeat timeout, sweeps every second and three attempts", () => {
    expect(leaseSettings()).toEqual({ leaseMs: 30_000, heartbeatTimeoutMs: 120_000, sweepIntervalMs: 1000, maxAttempts: 3 });
  });

  it("takes the values given over the defaults", () => {
    expect(leaseSettings({ leaseMs: 500, sweepIntervalMs: 250 })).toEqual({ leaseMs: 500, heartbeatTimeoutMs: 120_000, sweepIntervalMs: 250, maxAttempts: 3 });
  });
});

describe("checkClaim", () => {
  it("accepts known executors", () => {
    expect(checkClaim("r1", ["container", "process"])).toEqual(["container", "process"]);
  });

  it.each([
    ["", ["process"], "runner_id: is required"],
    ["r1", [], "executors: must name at least one of process, container"],
    ["r1", ["process", "vm"], "executors[1]: must be one of process, container, got 'vm'"],
  ])("refuses runner %p with %p", (runnerId, executors, message) => {
    expect(() => checkClaim(runnerId, executors)).toThrow(message);
  });
});

describe("grantLease and renewLease", () => {
  it("schedules the invocation under a new lease, counting the attempt and starting its clock", () => {
    const row = queued();
    grantLease(row, "r1", settings, now);
    expect(row).toMatchObject({ lastStatus: 1, leaseRunner: "r1", leaseExpires: at(30), started: now, attempts: 1 });
    expect(row.leaseId).toMatch(/^ls_/);
    expect(row.statusHistory.at(-1)).toEqual({ status: 1, detail: "claimed by runner r1", timestamp: now.toISOString() });
  });

  it("keeps the first claim's start on a retry", () => {
    const row = queued({ started: at(-100), attempts: 1 });
    grantLease(row, "r2", settings, now);
    expect(row).toMatchObject({ started: at(-100), attempts: 2 });
  });

  it("extends a live lease and records the heartbeat", () => {
    const row = queued();
    grantLease(row, "r1", settings, now);
    expect(renewLease(row, row.leaseId!, settings, at(20))).toEqual({ cancelRequested: false });
    expect(row).toMatchObject({ leaseExpires: at(50), lastHeartbeat: at(20) });
  });

  it("reports a lapsed, foreign or unknown lease as lost", () => {
    const row = queued();
    grantLease(row, "r1", settings, now);
    expect(() => renewLease(row, row.leaseId!, settings, at(31))).toThrow(/^\[failed_precondition\] lease lost/);
    expect(() => renewLease(row, "ls_other", settings, at(1))).toThrow(/lease lost/);
    expect(() => renewLease(null, "ls_other", settings, at(1))).toThrow(/lease lost/);
  });

  it("asks the runner to stop once the invocation has ended", () => {
    expect(renewLease(queued({ lastStatus: 997 }), "ls_gone", settings, now)).toEqual({ cancelRequested: true });
  });
});

describe("invocationApiKey", () => {
  it("acts for the submitter in the invocation's org until the timeout plus ten minutes after the start", () => {
    const key = invocationApiKey(queued({ started: now }), "k".repeat(32));
    const claims = verifyInvocationToken(key, "k".repeat(32), now.getTime());
    expect(claims).toEqual({ orgId: "og_1", userId: "alice", invocationId: "iv_1", exp: now.getTime() / 1000 + 600 * 60 + 600 });
  });
});
