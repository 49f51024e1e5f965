import { fromBinary } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { TOPICS, type NewEvent, type UnitOfWork } from "@hangar/shared";
import { FileChangedSchema } from "@hangar/shared/proto/events";
import { newFsNode, type FsNodeRow } from "./file-records";
import type { FileRepository } from "./file-repositories";
import { getFile, updateFile, type FileRepositories } from "./files";

const created = new Date("2026-01-01T00:00:00Z");

function file(init: Partial<FsNodeRow> = {}): FsNodeRow {
  const base = { nodeId: "fl_1", orgId: "og_1", associationId: "ds_1", associationType: "dataset", fsType: "file" as const, relativePath: "a/b.txt", status: "available" as const };
  return newFsNode({ ...base, created, createdBy: "creator", ...init });
}

/** A unit of work over one stored node; it records snapshots and events, and counts lock requests. */
function world(node: FsNodeRow | null, versions: Record<string, FsNodeRow> = {}) {
  const snapshots: FsNodeRow[] = [];
  const events: NewEvent[] = [];
  const locks: boolean[] = [];
  const files = {
    findNode: async (orgId: string, nodeId: string, lock = false) => (locks.push(lock), node && node.orgId === orgId && node.nodeId === nodeId ? node : null),
    version: async (_fileId: string, version: bigint) => versions[String(version)] ?? null,
    snapshot: async (rows: readonly FsNodeRow[]) => void snapshots.push(...rows.map((row) => ({ ...row }))),
  } as Partial<FileRepository> as FileRepository;
  const repositories: FileRepositories = { files, events: { record: (event) => void events.push(event) } };
  const uow: UnitOfWork<FileRepositories> = { repositories: () => repositories, transaction: (work) => work(repositories) };
  return { uow, snapshots, events, locks };
}

const actor = { orgId: "og_1", subject: "editor" };

describe("updateFile", () => {
  it("answers 404 for an unknown file before reading a malformed field", async () => {
    const { uow } = world(null);
    const change = { fileId: "fl_1", description: { kind: { case: "numberValue" as const, value: 1 } } } as never;
    await expect(updateFile(uow, actor, change)).rejects.toMatchObject({ code: Code.NotFound });
  });

  it("answers 404 to a caller without a readable org, even for an existing file", async () => {
    const { uow, locks } = world(file());
    await expect(updateFile(uow, { orgId: undefined, subject: "x" }, { fileId: "fl_1" })).rejects.toMatchObject({ code: Code.NotFound });
    expect(locks).toEqual([]);
  });

  it("refuses a file still being uploaded, keeping no snapshot and recording no event", async () => {
    const { uow, snapshots, events } = world(file({ status: "pending" }));
    await expect(updateFile(uow, actor, { fileId: "fl_1", ingestionComplete: true })).rejects.toThrow("file 'fl_1' is still being uploaded");
    expect(snapshots).toEqual([]);
    expect(events).toEqual([]);
  });

  it("locks the row, snapshots the version it replaces and records one file-changed event", async () => {
    const { uow, snapshots, events, locks } = world(file());
    const changes = { putTags: ["red"], removeTags: [], putFields: { k: 1 }, removeFields: [], replaceAll: false };
    const updated = await updateFile(uow, actor, { fileId: "fl_1", metadataChangeset: changes, ingestionComplete: true });
    expect(locks).toEqual([true]);
    expect(snapshots.map((s) => s.version)).toEqual(["1"]);
    expect(updated).toMatchObject({ version: "2", tags: ["red"], metadata: { k: 1 }, ingestionStatus: "ingested", modifiedBy: "editor" });
    expect(events.map((e) => [e.topic, e.key])).toEqual([[TOPICS.fileChanged, "ds_1"]]);
    expect(fromBinary(FileChangedSchema, events[0]!.payload)).toMatchObject({ fileId: "fl_1", metadataUpdated: true, ingested: true, actor: "editor" });
  });

  it("names the field of a tag that is not valid", async () => {
    const { uow } = world(file());
    const changes = { putTags: [""], removeTags: [], putFields: {}, removeFields: [], replaceAll: false };
    await expect(updateFile(uow, actor, { fileId: "fl_1", metadataChangeset: changes })).rejects.toThrow(/^\[invalid_argument\] metadata_changeset\.put_tags/);
  });
});

describe("getFile", () => {
  it("answers an earlier version's snapshot, and 404 for a version never written", async () => {
    const { uow } = world(file({ version: "3" }), { "2": file({ version: "2", relativePath: "old.txt" }) });
    expect((await getFile(uow, "og_1", "fl_1", 2n)).relativePath).toBe("old.txt");
    expect((await getFile(uow, "og_1", "fl_1", 3n)).version).toBe("3");
    await expect(getFile(uow, "og_1", "fl_1", 9n)).rejects.toThrow("file version 'fl_1@9' not found");
  });

  it("does not answer a directory as a file", async () => {
    const { uow } = world(file({ fsType: "directory" }));
    await expect(getFile(uow, "og_1", "fl_1", undefined)).rejects.toMatchObject({ code: Code.NotFound });
  });
});
