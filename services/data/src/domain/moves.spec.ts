import { Code } from "@connectrpc/connect";
import type { UnitOfWork } from "@hangar/shared";
import { newFsNode, type FsNodeRow } from "./file-records";
import type { FileRepository, NodePlace, TreeRepository } from "./file-repositories";
import { moveNodes, type MoveRepositories } from "./moves";

function node(path: string, fsType: FsNodeRow["fsType"], parentId: string | null = null): FsNodeRow {
  const base = { nodeId: `${fsType === "file" ? "fl" : "dr"}_${path}`, orgId: "og_1", associationId: "ds_1", associationType: "dataset", fsType, relativePath: path, status: "available" as const };
  return newFsNode({ ...base, parentId, created: new Date(0), createdBy: "u" });
}

/** Move repositories over fixed stored nodes; counts the queries and records what is written. */
function world(stored: FsNodeRow[]) {
  const queries: string[] = [];
  const written: NodePlace[][] = [];
  const files = {
    lockAssociation: async () => void queries.push("lock"),
    availableAtPaths: async (_a: string, paths: string[]) => (queries.push("availableAtPaths"), new Map(stored.filter((n) => paths.includes(n.relativePath)).map((n) => [n.relativePath, n]))),
  } as Partial<FileRepository> as FileRepository;
  const tree = {
    byIds: async (_o: string, ids: readonly string[]) => (queries.push("byIds"), stored.filter((n) => ids.includes(n.nodeId))),
    subtrees: async (_a: string, paths: readonly string[]) => (queries.push("subtrees"), stored.filter((n) => paths.some((p) => n.relativePath.startsWith(`${p}/`)))),
    relocate: async (places: readonly NodePlace[]) => void written.push([...places]),
  } as Partial<TreeRepository> as TreeRepository;
  const datasets = { find: async (orgId: string, datasetId: string) => (datasetId === "ds_1" ? { orgId, datasetId } : null), existingIds: async () => new Set<string>() };
  const repositories = { files, tree, datasets };
  const uow: UnitOfWork<MoveRepositories> = { repositories: () => repositories, transaction: (work) => work(repositories) };
  return { uow, queries, written };
}

const dir = node("dir", "directory");
const files = Array.from({ length: 50 }, (_, i) => node(`f${i}.txt`, "file"));

describe("moveNodes", () => {
  it("refuses an empty batch", async () => {
    await expect(moveNodes(world([]).uow, "og_1", "ds_1", [], "u")).rejects.toThrow("operations: must list at least one move");
  });

  it("reads and writes a fixed number of times whatever the batch size", async () => {
    const { uow, queries, written } = world([dir, ...files]);
    const moves = files.map((f) => ({ nodeId: f.nodeId, fsType: "file", newParentId: dir.nodeId }));
    await moveNodes(uow, "og_1", "ds_1", moves, "u");
    expect(queries).toEqual(["lock", "byIds", "byIds", "subtrees", "availableAtPaths", "byIds"]);
    expect(written).toHaveLength(1);
    expect(written[0]).toHaveLength(50);
  });

  it("refuses a destination taken by a node the batch did not load, writing nothing", async () => {
    const { uow, written } = world([dir, files[0]!, node("dir/f0.txt", "file", dir.nodeId)]);
    const moves = [{ nodeId: files[0]!.nodeId, fsType: "file", newParentId: dir.nodeId }];
    await expect(moveNodes(uow, "og_1", "ds_1", moves, "u")).rejects.toMatchObject({ code: Code.AlreadyExists, rawMessage: "'dir/f0.txt' already exists" });
    expect(written).toEqual([]);
  });

  it("reports a stored clash of an earlier move before a later move's own error, as one-by-one moves would", async () => {
    const { uow, written } = world([dir, files[0]!, node("dir/f0.txt", "file", dir.nodeId)]);
    const moves = [
      { nodeId: files[0]!.nodeId, fsType: "file", newParentId: dir.nodeId },
      { nodeId: "fl_nope", fsType: "file" },
    ];
    await expect(moveNodes(uow, "og_1", "ds_1", moves, "u")).rejects.toMatchObject({ code: Code.AlreadyExists });
    expect(written).toEqual([]);
  });

  it("takes a path its own earlier move freed, though the store still holds it there", async () => {
    const { uow, written } = world([dir, files[0]!, files[1]!]);
    const moves = [
      { nodeId: files[0]!.nodeId, fsType: "file", newParentId: dir.nodeId },
      { nodeId: files[1]!.nodeId, fsType: "file", newName: "f0.txt" },
    ];
    await moveNodes(uow, "og_1", "ds_1", moves, "u");
    expect(written[0]!.map((p) => [p.nodeId, p.relativePath])).toEqual([
      ["fl_f0.txt", "dir/f0.txt"],
      ["fl_f1.txt", "f0.txt"],
    ]);
  });

  it("answers 404 for another org's dataset", async () => {
    await expect(moveNodes(world([]).uow, undefined, "ds_1", [{ nodeId: "x", fsType: "" }], "u")).rejects.toMatchObject({ code: Code.NotFound });
  });
});
