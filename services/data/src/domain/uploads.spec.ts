import { Code } from "@connectrpc/connect";
import type { UnitOfWork } from "@hangar/shared";
import type { ObjectStore } from "../object-store/object-store";
import type { FsNodeRow, UploadItemRow, UploadTransactionRow } from "./file-records";
import type { FileRepository, UploadRepository } from "./file-repositories";
import { abortTransactions, beginUpload, completeUpload, type UploadRepositories } from "./uploads";

function transaction(id: string, status: UploadTransactionRow["status"], associationId = "ds_1"): UploadTransactionRow {
  const created = new Date("2026-01-01T00:00:00Z");
  return { transactionId: id, orgId: "og_1", associationId, associationType: "dataset", origination: "", deviceId: null, prefix: `og_1/${associationId}/${id}/`, status, created, createdBy: "u", completed: null };
}

function item(transactionId: string, path: string, size = "3"): UploadItemRow {
  return { transactionId, relativePath: path, size, objectKey: `og_1/ds_1/${transactionId}/${path}`, fileId: `fl_${path}`, uploaded: false };
}

/** Upload repositories over fixed transactions and items; every call that writes or locks paths is recorded. */
function world(transactions: UploadTransactionRow[], items: UploadItemRow[] = []) {
  const calls: string[] = [];
  const uploads = {
    transaction: async (orgId: string, id: string) => transactions.find((t) => t.orgId === orgId && t.transactionId === id) ?? null,
    transactionsByIds: async (orgId: string, ids: readonly string[]) => new Map(transactions.filter((t) => t.orgId === orgId && ids.includes(t.transactionId)).map((t) => [t.transactionId, t])),
    items: async (id: string) => items.filter((i) => i.transactionId === id),
    itemsOfAll: async (ids: readonly string[]) => items.filter((i) => ids.includes(i.transactionId)),
    insertTransaction: async (row: UploadTransactionRow) => void calls.push(`insertTransaction ${row.associationId}`),
    insertItems: async (rows: readonly UploadItemRow[]) => void calls.push(`insertItems ${rows.map((row) => row.relativePath).join(" ")}`),
    updateStatuses: async (rows: readonly UploadTransactionRow[]) => void calls.push(`updateStatuses ${rows.map((row) => `${row.transactionId}=${row.status}`).join(" ")}`),
    updateItems: async (rows: readonly UploadItemRow[]) => void calls.push(`updateItems ${rows.map((row) => row.relativePath).join(" ")}`),
  } satisfies UploadRepository;
  const files = {
    lockAssociation: async (id: string) => void calls.push(`lock ${id}`),
    // Every file an item names is still pending.
    nodesByIds: async (_orgId: string, ids: readonly string[]) => new Map(ids.map((id) => [id, { nodeId: id, status: "pending" } as FsNodeRow])),
    availableAtPaths: async () => new Map(),
    insertNodes: async (rows: readonly { relativePath: string }[]) => void calls.push(`insertNodes ${rows.map((row) => row.relativePath).join(" ")}`),
    deleteNodes: async (ids: readonly string[]) => void calls.push(`deleteNodes ${ids.join(" ")}`),
  } as Partial<FileRepository> as FileRepository;
  const repositories = { files, uploads, events: { record: () => void calls.push("event") }, datasets: { find: async () => null, existingIds: async () => new Set<string>() } };
  const uow: UnitOfWork<UploadRepositories> = { repositories: () => repositories, transaction: (work) => work(repositories) };
  return { uow, calls };
}

/** An object store holding objects of the given sizes by key. */
function objectsWith(sizes: Record<string, number>): ObjectStore {
  return {
    location: { bucket: "b", region: "r", endpoint: undefined },
    head: async (key: string) => (key in sizes ? { size: sizes[key]!, etag: "e" } : undefined),
  } as Partial<ObjectStore> as ObjectStore;
}

const actor = { orgId: "og_1", subject: "u" };

describe("beginUpload", () => {
  const opening = { orgId: "og_1", subject: "u", associationId: "ds_1", associationType: "dataset", origination: "", deviceId: null, field: "resource_manifest" };

  it("refuses an empty manifest, writing nothing", async () => {
    const { uow, calls } = world([]);
    await expect(beginUpload(uow, objectsWith({}), { ...opening, manifest: {} })).rejects.toThrow("resource_manifest: must list at least one file");
    expect(calls).toEqual([]);
  });

  it("refuses two entries naming the same path, naming the second, writing nothing", async () => {
    const { uow, calls } = world([]);
    const manifest = { "a.txt": 1n, "./a.txt": 2n };
    await expect(beginUpload(uow, objectsWith({}), { ...opening, manifest })).rejects.toThrow("resource_manifest../a.txt: names the same path as another entry ('a.txt')");
    expect(calls).toEqual([]);
  });

  it("inserts the pending files of new paths, then the transaction and its items, a statement each", async () => {
    const { uow, calls } = world([]);
    const { items } = await beginUpload(uow, objectsWith({}), { ...opening, manifest: { "a.txt": 1n, "d/b.txt": 2n } });
    expect(items.map((i) => [i.relativePath, i.size, i.uploaded])).toEqual([["a.txt", "1", false], ["d/b.txt", "2", false]]);
    expect(calls).toEqual(["insertNodes a.txt d/b.txt", "insertTransaction ds_1", "insertItems a.txt d/b.txt"]);
  });
});

describe("completeUpload", () => {
  it("answers 404 when the dataset route names another dataset than the transaction's", async () => {
    const { uow, calls } = world([transaction("tx_1", "open")], [item("tx_1", "a.txt")]);
    await expect(completeUpload(uow, objectsWith({}), actor, "tx_1", "ds_other")).rejects.toMatchObject({ code: Code.NotFound });
    expect(calls).toEqual([]);
  });

  it("refuses an aborted transaction with a 409", async () => {
    const { uow } = world([transaction("tx_1", "aborted")]);
    await expect(completeUpload(uow, objectsWith({}), actor, "tx_1")).rejects.toMatchObject({ code: Code.AlreadyExists });
  });

  it("changes nothing when the transaction is already completed", async () => {
    const { uow, calls } = world([transaction("tx_1", "completed")], [item("tx_1", "a.txt")]);
    expect(await completeUpload(uow, objectsWith({}), actor, "tx_1")).toBe(false);
    expect(calls).toEqual([]);
  });

  it("checks every item's bytes before anything is written", async () => {
    const items = [item("tx_1", "a.txt"), item("tx_1", "b.txt")];
    const { uow, calls } = world([transaction("tx_1", "open")], items);
    const objects = objectsWith({ [items[0]!.objectKey]: 3, [items[1]!.objectKey]: 5 });
    await expect(completeUpload(uow, objects, actor, "tx_1")).rejects.toThrow("upload 'b.txt': 'b.txt' is 5 bytes but the manifest says 3");
    expect(calls).toEqual([]);
  });
});

describe("abortTransactions", () => {
  it("refuses the whole batch for an unknown id, naming its index", async () => {
    const { uow } = world([transaction("tx_1", "open")]);
    await expect(abortTransactions(uow, "og_1", ["tx_1", "tx_nope"])).rejects.toThrow("transaction_ids[1]: upload transaction 'tx_nope' not found");
  });

  it("refuses the whole batch when one is completed, aborting none", async () => {
    const open = transaction("tx_1", "open");
    const { uow } = world([open, transaction("tx_2", "completed")]);
    await expect(abortTransactions(uow, "og_1", ["tx_1", "tx_2"])).rejects.toMatchObject({ code: Code.AlreadyExists });
    expect(open.status).toBe("open");
  });

  it("aborts open transactions and deletes their pending files, leaves aborted ones alone and answers their items' object keys", async () => {
    const open = transaction("tx_1", "open");
    const { uow, calls } = world([open, transaction("tx_2", "aborted")], [item("tx_1", "a.txt"), item("tx_2", "b.txt")]);
    expect(await abortTransactions(uow, "og_1", ["tx_1", "tx_2"])).toEqual(["og_1/ds_1/tx_1/a.txt"]);
    expect(open.status).toBe("aborted");
    expect(calls).toEqual(["updateStatuses tx_1=aborted", "deleteNodes fl_a.txt"]);
  });

  it("does not see another org's transactions", async () => {
    const { uow } = world([{ ...transaction("tx_1", "open"), orgId: "og_2" }]);
    await expect(abortTransactions(uow, "og_1", ["tx_1"])).rejects.toThrow("transaction_ids[0]: upload transaction 'tx_1' not found");
  });
});
