import { anAction, anInvocation, memoryUnitOfWork } from "./in-memory-repositories.fixture";
import { InvocationStatus } from "./invocation-status";
import { leaseSettings } from "./leases";
import { appendRunnerLogs, claimInvocation, renewRunnerLease, reportRunnerStatus, requireLeaseId } from "./runner-protocol";
import { sweepOnce } from "./sweeper";

const settings = leaseSettings({ leaseMs: 30_000 });
const claimBy = (runnerId: string) => ({ runnerId, executors: ["process" as const], concurrencyLimit: 4 });

describe("claimInvocation", () => {
  it("leases the queued invocation and hands over the action at the invocation's digest", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.actions.push(anAction("og_1", "process", { digest: "d1" }));
    state.versions.push({ orgId: "og_1", name: "process", digest: "d0", definition: { uri: "img:0" }, created: new Date() });
    state.invocations.push(anInvocation("og_1", "iv_1"));
    const claim = await claimInvocation(uow, settings, claimBy("r1"));
    expect(claim?.invocation).toMatchObject({ lastStatus: InvocationStatus.Scheduled, leaseRunner: "r1", attempts: 1 });
    expect(claim?.action?.version.definition).toEqual({ uri: "img:0" });
    expect(await claimInvocation(uow, settings, claimBy("r2"))).toBeUndefined();
  });

  it("a claim of an invocation whose action was deleted carries no action", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.invocations.push(anInvocation("og_1", "iv_1"));
    const claim = await claimInvocation(uow, settings, claimBy("r1"));
    expect(claim).toEqual({ invocation: expect.objectContaining({ invocationId: "iv_1" }) });
  });
});

describe("calls under a lease", () => {
  async function leased() {
    const memory = memoryUnitOfWork();
    memory.state.invocations.push(anInvocation("og_1", "iv_1"));
    const claim = await claimInvocation(memory.uow, settings, claimBy("r1"));
    return { ...memory, leaseId: claim!.invocation.leaseId! };
  }

  it("lease_id is required", () => {
    expect(() => requireLeaseId(" ")).toThrow("lease_id: is required");
  });

  it("log lines are checked all before any is written, naming the entry", async () => {
    const { uow, state, leaseId } = await leased();
    const lines = [{ process: "action", log: "ok", timestamp: new Date() }, { process: "firelens_log_router", log: "no", timestamp: new Date() }];
    await expect(appendRunnerLogs(uow, leaseId, lines)).rejects.toThrow("entries[1].process: must be one of setup, action, output_handler, monitor, got 'firelens_log_router'");
    await appendRunnerLogs(uow, leaseId, lines.slice(0, 1));
    expect(state.logs).toEqual([{ invocationId: "iv_1", process: "action", log: "ok" }]);
  });

  it("a lost lease is refused; an ended invocation asks its runner to stop", async () => {
    const { uow, leaseId } = await leased();
    await expect(reportRunnerStatus(uow, "ls_other", InvocationStatus.Processing, null)).rejects.toThrow("lease lost: lease 'ls_other'");
    expect(await renewRunnerLease(uow, settings, { leaseId })).toMatchObject({ cancelRequested: false });
    await reportRunnerStatus(uow, leaseId, InvocationStatus.Cancelled, "stopped");
    expect(await renewRunnerLease(uow, settings, { leaseId, invocationId: "iv_1" })).toEqual({ cancelRequested: true });
  });
});

describe("sweepOnce", () => {
  it("applies the sweeper rules to each candidate and counts the invocations it moved", async () => {
    const { uow, state } = memoryUnitOfWork();
    const now = new Date("2026-01-01T01:00:00Z");
    state.invocations.push(
      anInvocation("og_1", "iv_lapsed", { lastStatus: 1, leaseId: "ls_1", leaseRunner: "r1", leaseExpires: new Date(now.getTime() - 1), started: now, attempts: 1 }),
      anInvocation("og_1", "iv_held", { lastStatus: 1, leaseId: "ls_2", leaseRunner: "r2", leaseExpires: new Date(now.getTime() + 1), started: now, attempts: 1 }),
    );
    expect(await sweepOnce(uow, settings, now)).toBe(1);
    expect(state.invocations.map((i) => [i.invocationId, i.lastStatus, i.leaseId])).toEqual([["iv_lapsed", 0, null], ["iv_held", 1, "ls_2"]]);
  });
});
