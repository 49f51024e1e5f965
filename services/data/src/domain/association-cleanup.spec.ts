import { fixedUnitOfWork } from "@hangar/shared";
import { cleanupStep, type AssociationDeletionRepository, type NodeBatch, type ObjectDeleter, type TransactionBatch } from "./association-cleanup";

/** A queue over fixed batches that records every call in order; `shared` URIs are still referenced elsewhere; `clash` is a path taken at an org's root. */
function fakeQueue(state: { job: string | null; nodes: NodeBatch; transactions: TransactionBatch; shared: string[]; clash?: string }) {
  const calls: string[] = [];
  const queue: AssociationDeletionRepository = {
    retire: async (a) => void calls.push(`retire ${a.associationId} ${a.associationType} ${a.orgId} ${a.requestedBy}`),
    claim: async () => state.job,
    nodeBatch: async (id, limit) => (calls.push(`nodeBatch ${id} ${limit}`), state.nodes),
    deleteNodes: async (ids) => void calls.push(`deleteNodes ${ids.join(",")}`),
    transactionBatch: async (id, limit) => (calls.push(`transactionBatch ${id} ${limit}`), state.transactions),
    deleteTransactions: async (ids) => void calls.push(`deleteTransactions ${ids.join(",")}`),
    unreferencedKeys: async (uris) => (calls.push(`unreferencedKeys ${uris.join(",")}`), uris.filter((u) => !state.shared.includes(u)).map((u) => u.slice("s3://b/".length))),
    finish: async (id) => void calls.push(`finish ${id}`),
  };
  const objects: ObjectDeleter = { deleteObjects: async (keys) => void calls.push(`deleteObjects ${keys.join(",")}`), uriOf: (key) => `s3://b/${key}` };
  return { uow: fixedUnitOfWork({ associationDeletions: queue }), objects, calls };
}

const none = { ids: [], uris: [] };
const noTransactions = { ids: [], objectKeys: [] };

describe("cleanupStep", () => {
  it("answers false and touches nothing when no deletion is queued", async () => {
    const { uow, objects, calls } = fakeQueue({ job: null, nodes: none, transactions: noTransactions, shared: [] });
    expect(await cleanupStep(uow, objects, 10)).toBe(false);
    expect(calls).toEqual([]);
  });

  it("deletes a batch of nodes first, then only the bytes nothing else points at", async () => {
    const nodes = { ids: ["fl_1", "dr_1"], uris: ["s3://b/o/ds/one", "s3://b/o/ds/linked"] };
    const { uow, objects, calls } = fakeQueue({ job: "ds_1", nodes, transactions: { ids: ["tx_1"], objectKeys: ["o/ds/x"] }, shared: ["s3://b/o/ds/linked"] });
    expect(await cleanupStep(uow, objects, 10)).toBe(true);
    expect(calls).toEqual(["nodeBatch ds_1 10", "deleteNodes fl_1,dr_1", "unreferencedKeys s3://b/o/ds/one,s3://b/o/ds/linked", "deleteObjects o/ds/one"]);
  });

  it("with no nodes left, deletes a batch of upload transactions and their manifests' unshared bytes", async () => {
    const { uow, objects, calls } = fakeQueue({ job: "ds_1", nodes: none, transactions: { ids: ["tx_1"], objectKeys: ["o/ds/tx_1/a"] }, shared: [] });
    expect(await cleanupStep(uow, objects, 10)).toBe(true);
    expect(calls).toEqual(["nodeBatch ds_1 10", "transactionBatch ds_1 10", "deleteTransactions tx_1", "unreferencedKeys s3://b/o/ds/tx_1/a", "deleteObjects o/ds/tx_1/a"]);
  });

  it("with nothing left, takes the deletion off the queue", async () => {
    const { uow, objects, calls } = fakeQueue({ job: "ds_1", nodes: none, transactions: noTransactions, shared: [] });
    expect(await cleanupStep(uow, objects, 10)).toBe(true);
    expect(calls).toEqual(["nodeBatch ds_1 10", "transactionBatch ds_1 10", "finish ds_1"]);
  });
});
