import { notFound, TOPICS } from "@hangar/shared";
import type { DatasetDirectory } from "./datasets";
import { anAction, anInvocation, memoryUnitOfWork, recordedDeletions } from "./in-memory-repositories.fixture";
import { BULK_CANCEL_BATCH_SIZE } from "./invocation-lifecycle";
import { InvocationStatus } from "./invocation-status";
import type { InvocationRequest } from "./invoke";
import { bulkCancelInvocations, cancelInvocationAs, deleteInvocation, getInvocation, invokeAction, setInvocationStatus } from "./manage-invocations";

/** The data service's datasets: `held` by org; every question asked is recorded. */
function datasets(held: Record<string, string[]>): DatasetDirectory & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async requireDataset(orgId, datasetId) {
      asked.push(datasetId);
      if (!held[orgId]?.includes(datasetId)) throw notFound("dataset", datasetId);
    },
  };
}

const request = (overrides: Partial<InvocationRequest> = {}): InvocationRequest => ({
  orgId: "og_1",
  submitter: "alice",
  action: { name: "process", ownerOrgId: "og_1" },
  dataSource: { type: "Dataset", id: "ds_1" },
  inputData: ["*.bag"],
  parameterValues: {},
  source: { type: "Manual", id: "alice" },
  ...overrides,
});

describe("invokeAction", () => {
  it("checks the data source and then the output dataset before creating anything", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.actions.push(anAction("og_1", "process"));
    const directory = datasets({ og_1: ["ds_1"] });
    const toDataset = { bucket: "", prefix: "dataset:ds_out" };
    await expect(invokeAction(uow, directory, request({ uploadDestination: toDataset }))).rejects.toThrow("dataset 'ds_out' not found");
    await expect(invokeAction(uow, directory, request({ dataSource: { type: "Dataset", id: "ds_2" } }))).rejects.toThrow("dataset 'ds_2' not found");
    expect(directory.asked).toEqual(["ds_1", "ds_out", "ds_2"]);
    expect(state.invocations).toEqual([]);
  });

  it("creates a Queued invocation once per idempotency id", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.actions.push(anAction("og_1", "process"));
    const directory = datasets({ og_1: ["ds_1"] });
    const first = await invokeAction(uow, directory, request({ idempotencyId: "k1" }));
    const again = await invokeAction(uow, directory, request({ idempotencyId: "k1", inputData: ["other"] }));
    expect(again.invocationId).toBe(first.invocationId);
    expect(first).toMatchObject({ lastStatus: InvocationStatus.Queued, createdBy: "alice", inputData: ["*.bag"], timeout: 30 });
    expect(state.invocations).toHaveLength(1);
  });

  it("refuses parameter values the action does not declare", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.actions.push(anAction("og_1", "process"));
    await expect(invokeAction(uow, datasets({ og_1: ["ds_1"] }), request({ parameterValues: { x: "1" } }))).rejects.toThrow(
      "parameter_values.x: is not a parameter of this action (its parameters: none)",
    );
  });
});

describe("changes to one invocation", () => {
  it("another org's invocation is not found", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.invocations.push(anInvocation("og_2", "iv_1"));
    await expect(getInvocation(uow, { orgId: "og_1", invocationId: "iv_1" })).rejects.toThrow("invocation 'iv_1' not found");
    await expect(cancelInvocationAs(uow, { orgId: "og_1", invocationId: "iv_1" }, "bob")).rejects.toThrow("invocation 'iv_1' not found");
    expect(state.invocations[0]!.lastStatus).toBe(InvocationStatus.Queued);
  });

  it("a running invocation cannot be deleted; once cancelled it can, and a second cancel changes nothing", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.invocations.push(anInvocation("og_1", "iv_1"));
    const ref = { orgId: "og_1", invocationId: "iv_1" };
    await expect(deleteInvocation(uow, ref)).rejects.toThrow("invocation iv_1 is Queued: cancel it first");
    expect(state.events).toEqual([]);
    await cancelInvocationAs(uow, ref, "bob");
    const again = await cancelInvocationAs(uow, ref, "bob");
    expect(again.statusHistory.map((e) => [e.status, e.detail])).toEqual([[0, null], [997, "cancelled by bob"]]);
    await deleteInvocation(uow, ref);
    expect(state.invocations).toEqual([]);
    expect(recordedDeletions(state)).toEqual([[TOPICS.computeEntityDeleted, "iv_1", "invocation", "iv_1", "og_1"]]);
  });

  it("a refused status move leaves the invocation as it was", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.invocations.push(anInvocation("og_1", "iv_1", { lastStatus: InvocationStatus.Completed }));
    await expect(setInvocationStatus(uow, { orgId: "og_1", invocationId: "iv_1" }, InvocationStatus.Processing, null)).rejects.toThrow(
      "cannot move invocation from Completed to Processing",
    );
    expect(state.invocations[0]!.lastStatus).toBe(InvocationStatus.Completed);
  });
});

describe("bulkCancelInvocations", () => {
  it("cancels a batch of the org's unfinished invocations created before the cut-off and says whether more remain", async () => {
    const { uow, state } = memoryUnitOfWork();
    const at = (ms: number) => new Date(Date.parse("2026-01-01T00:00:00Z") + ms);
    for (let i = 0; i <= BULK_CANCEL_BATCH_SIZE; i++) state.invocations.push(anInvocation("og_1", `iv_${i}`, { created: at(i) }));
    state.invocations.push(anInvocation("og_1", "iv_late", { created: at(10_000) }), anInvocation("og_2", "iv_other", { created: at(0) }));
    expect(await bulkCancelInvocations(uow, "og_1", at(5_000), "bob")).toEqual({ cancelled: BULK_CANCEL_BATCH_SIZE, hasMore: true });
    expect(await bulkCancelInvocations(uow, "og_1", at(5_000), "bob")).toEqual({ cancelled: 1, hasMore: false });
    const queued = state.invocations.filter((i) => i.lastStatus === InvocationStatus.Queued).map((i) => i.invocationId);
    expect(queued).toEqual(["iv_late", "iv_other"]);
  });
});
