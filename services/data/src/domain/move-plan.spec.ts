import { Code } from "@connectrpc/connect";
import { newFsNode, type FsNodeRow } from "./file-records";
import { planMoves } from "./move-plan";

/** A node of dataset ds_1: id from its path (`fl_a.txt`, `dr_src`), parent given by id. */
function node(path: string, fsType: FsNodeRow["fsType"], parentId: string | null = null, init: Partial<FsNodeRow> = {}): FsNodeRow {
  const base = { nodeId: `${fsType === "file" ? "fl" : "dr"}_${path}`, orgId: "og_1", associationId: "ds_1", associationType: "dataset", fsType, relativePath: path, status: "available" as const };
  return newFsNode({ ...base, parentId, created: new Date(0), createdBy: "u", ...init });
}

const src = node("src", "directory");
const inner = node("src/inner", "directory", "dr_src");
const a = node("src/a.txt", "file", "dr_src");
const b = node("src/inner/b.txt", "file", "dr_src/inner");
const dst = node("dst", "directory");
const loose = node("loose.txt", "file");
const tree = [src, inner, a, b, dst, loose];

const pathsOf = (places: { relativePath: string }[]) => places.map((p) => p.relativePath).sort();

describe("planMoves", () => {
  it("moves a directory with everything below it, reporting its files by path", () => {
    const plan = planMoves("ds_1", [{ nodeId: "dr_src", fsType: "directory", newParentId: "dr_dst" }], tree);
    expect(plan.refusal).toBeUndefined();
    expect(plan.destinations).toEqual(["dst/src"]);
    expect(pathsOf(plan.places)).toEqual(["dst/src", "dst/src/a.txt", "dst/src/inner", "dst/src/inner/b.txt"]);
    expect(plan.places.find((p) => p.nodeId === "dr_src")).toMatchObject({ name: "src", parentId: "dr_dst" });
    expect(plan.fileIds).toEqual(["fl_src/a.txt", "fl_src/inner/b.txt"]);
  });

  it("lets each move see the ones before it: a path freed earlier can be taken, a moved parent carries its child", () => {
    const plan = planMoves(
      "ds_1",
      [
        { nodeId: "fl_loose.txt", fsType: "file", newParentId: "dr_dst" },
        { nodeId: "dr_src", fsType: "directory", newParentId: "dr_dst" },
        { nodeId: "fl_src/a.txt", fsType: "file", newName: "loose.txt", newParentId: "/" },
        { nodeId: "fl_src/inner/b.txt", fsType: "file", newName: "c.txt" },
      ],
      tree,
    );
    expect(plan.refusal).toBeUndefined();
    expect(plan.destinations).toEqual(["dst/loose.txt", "dst/src", "loose.txt", "dst/src/inner/c.txt"]);
    expect(pathsOf(plan.places)).toEqual(["dst/loose.txt", "dst/src", "dst/src/inner", "dst/src/inner/c.txt", "loose.txt"]);
  });

  it("refuses a destination taken by a node it loaded, keeping the destinations of the moves before", () => {
    const plan = planMoves(
      "ds_1",
      [
        { nodeId: "fl_loose.txt", fsType: "file", newParentId: "dr_src", newName: "x.txt" },
        { nodeId: "fl_src/inner/b.txt", fsType: "file", newParentId: "dr_src", newName: "a.txt" },
      ],
      tree,
    );
    expect(plan.refusal).toMatchObject({ code: Code.AlreadyExists, rawMessage: "'src/a.txt' already exists" });
    expect(plan.destinations).toEqual(["src/x.txt"]);
  });

  it("refuses moving a directory below itself, also when that became so earlier in the batch", () => {
    const moves = [
      { nodeId: "dr_src", fsType: "directory", newParentId: "dr_dst" },
      { nodeId: "dr_dst", fsType: "", newParentId: "dr_src" },
    ];
    expect(planMoves("ds_1", moves, tree).refusal).toMatchObject({ rawMessage: "operations[1].new_parent_id: cannot move a directory below itself" });
  });

  it.each([
    [{ nodeId: "fl_nope", fsType: "file" }, "operations[0].node_id: node 'fl_nope' not found in the dataset"],
    [{ nodeId: "fl_loose.txt", fsType: "directory" }, "operations[0].fs_type: node 'fl_loose.txt' is a file"],
    [{ nodeId: "fl_loose.txt", fsType: "file", newParentId: "fl_src/a.txt" }, "operations[0].new_parent_id: directory 'fl_src/a.txt' not found in the dataset"],
    [{ nodeId: "fl_loose.txt", fsType: "file", newName: "a/b" }, "operations[0].new_name: must be a single name"],
    [{ nodeId: "fl_other", fsType: "file" }, "operations[0].node_id: node 'fl_other' not found in the dataset"],
    [{ nodeId: "fl_pending", fsType: "file" }, "operations[0].node_id: node 'fl_pending' not found in the dataset"],
  ])("refuses %p", (move, message) => {
    const other = node("x", "file", null, { nodeId: "fl_other", associationId: "ds_2" });
    const pending = node("p", "file", null, { nodeId: "fl_pending", status: "pending" });
    const plan = planMoves("ds_1", [move], [...tree, other, pending]);
    expect(plan.refusal).toMatchObject({ code: Code.InvalidArgument, rawMessage: message });
    expect(plan.places).toEqual([]);
  });

  it("changes nothing for a move to where the node already is, still reporting the file", () => {
    const plan = planMoves("ds_1", [{ nodeId: "fl_src/a.txt", fsType: "file", newName: "a.txt" }], tree);
    expect(plan).toEqual({ destinations: [], places: [], fileIds: ["fl_src/a.txt"] });
  });
});
