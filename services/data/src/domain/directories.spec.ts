import type { UnitOfWork } from "@hangar/shared";
import { createDirectory, directoryPath, renameDirectory, type DirectoryRepositories } from "./directories";
import { newFsNode, type FsNodeRow } from "./file-records";
import type { FileRepository, TreeRepository } from "./file-repositories";

describe("directoryPath", () => {
  it.each([
    ["", ""],
    ["/", ""],
    [".", ""],
    ["/a/b/", "a/b"],
    ["a", "a"],
  ])("reads %p as %p", (raw, path) => {
    expect(directoryPath(raw, "directory_path")).toBe(path);
  });

  it("refuses a path with a dot segment, naming the field", () => {
    expect(() => directoryPath("a/../b", "directory_path")).toThrow("directory_path: 'a/../b' must not contain '.' or '..' segments");
  });
});

const owner = { orgId: "og_1", associationId: "ds_1", associationType: "dataset" };

function node(path: string, fsType: FsNodeRow["fsType"]): FsNodeRow {
  const base = { nodeId: `${fsType === "file" ? "fl" : "dr"}_${path}`, orgId: "og_1", associationId: "ds_1", associationType: "dataset", fsType, relativePath: path, status: "available" as const };
  return newFsNode({ ...base, created: new Date(0), createdBy: "u" });
}

/** Directory repositories over fixed available nodes; writes and locks are recorded in order. */
function world(nodes: FsNodeRow[]) {
  const calls: string[] = [];
  const files = {
    lockAssociation: async (id: string) => void calls.push(`lock ${id}`),
    findAvailableAtPath: async (_association: string, path: string) => nodes.find((n) => n.relativePath === path) ?? null,
    ensureParents: async (file: { relativePath: string }) => (calls.push(`ensureParents ${file.relativePath}`), null),
  } as Partial<FileRepository> as FileRepository;
  const tree = { movePrefix: async (_a: string, from: string, to: string) => void calls.push(`movePrefix ${from} ${to}`) } as Partial<TreeRepository> as TreeRepository;
  const repositories = { files, tree };
  const uow: UnitOfWork<DirectoryRepositories> = { repositories: () => repositories, transaction: (work) => work(repositories) };
  return { uow, calls };
}

describe("createDirectory", () => {
  const creation = { name: "d", createIntermediateDirs: false, errorIfExists: false };

  it("answers an existing directory as it is, or a 409 when asked to", async () => {
    const existing = node("p/d", "directory");
    const { uow, calls } = world([node("p", "directory"), existing]);
    expect(await createDirectory(uow, owner, { ...creation, parentPath: "p" }, "u")).toBe(existing);
    await expect(createDirectory(uow, owner, { ...creation, parentPath: "p", errorIfExists: true }, "u")).rejects.toThrow("directory 'p/d' already exists");
    expect(calls).toEqual(["lock ds_1", "lock ds_1"]);
  });

  it("refuses a path taken by a file, even when the directory may exist", async () => {
    const { uow } = world([node("d", "file")]);
    await expect(createDirectory(uow, owner, creation, "u")).rejects.toThrow("'d' is a file");
  });

  it("answers 404 for a missing parent unless intermediate directories are asked for", async () => {
    const { uow, calls } = world([]);
    await expect(createDirectory(uow, owner, { ...creation, parentPath: "/p/q/" }, "u")).rejects.toThrow("parent directory 'p/q' not found");
    expect(calls).toEqual(["lock ds_1"]);
  });

  it("refuses a name holding a slash before taking the lock", async () => {
    const { uow, calls } = world([]);
    await expect(createDirectory(uow, owner, { ...creation, name: "a/b" }, "u")).rejects.toThrow("name: must be a single name; use parent_path for the location");
    expect(calls).toEqual([]);
  });
});

describe("renameDirectory", () => {
  it("refuses a new path at or below the old one before taking the lock", async () => {
    const { uow, calls } = world([node("a", "directory")]);
    await expect(renameDirectory(uow, owner, "a", "a/b", "u")).rejects.toThrow("new_path: must not be the directory itself or below it");
    await expect(renameDirectory(uow, owner, "a", "a", "u")).rejects.toThrow("new_path:");
    expect(calls).toEqual([]);
  });

  it("refuses a taken new path and a missing parent, moving nothing", async () => {
    const { uow, calls } = world([node("a", "directory"), node("b", "file")]);
    await expect(renameDirectory(uow, owner, "a", "b", "u")).rejects.toThrow("'b' already exists");
    await expect(renameDirectory(uow, owner, "a", "x/y", "u")).rejects.toThrow("directory 'x' not found");
    expect(calls.filter((c) => c.startsWith("movePrefix"))).toEqual([]);
  });

  it("moves what is below and the directory itself, under its new parent", async () => {
    const { uow, calls } = world([node("a", "directory"), node("x", "directory")]);
    const moved = await renameDirectory(uow, owner, "a", "x/a2", "u");
    expect(moved).toMatchObject({ relativePath: "x/a2", name: "a2", parentId: "dr_x", modifiedBy: "u" });
    expect(calls).toEqual(["lock ds_1", "movePrefix a x/a2"]);
  });
});
