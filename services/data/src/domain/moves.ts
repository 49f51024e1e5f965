import { conflict, invalidArgument, notFound, quoteValue, rawSql, type UnitOfWork } from "@hangar/shared";
import type { FsNodeRow } from "./file-records";
import type { DatasetLookup, FileRepository } from "./file-repositories";
import { baseName, checkRelativePath } from "./paths";
import { pathPatternFilter } from "./path-filter";
import type { DataRepositories } from "./repositories";

/** The repositories of moves and bulk deletes. */
export type MoveRepositories = Pick<DataRepositories, "files" | "tree" | "datasets">;

/** Files one delete_dataset_files call deletes at most; `has_more` asks for another call. */
export const DELETE_BATCH_SIZE = 500;

/** A dataset of the org; no readable org, or no such dataset, is a 404. */
async function datasetOf(datasets: DatasetLookup, orgId: string | undefined, datasetId: string): Promise<{ datasetId: string; orgId: string }> {
  const dataset = orgId ? await datasets.find(orgId, datasetId) : null;
  if (!dataset) throw notFound("dataset", datasetId);
  return dataset;
}

/** One move of a move_nodes batch as requested: the node, its expected type, and its new parent and name (each kept when omitted). */
export interface NodeMove {
  nodeId: string;
  fsType: string;
  newParentId?: string | undefined;
  newName?: string | undefined;
}

/** move_nodes: applies moves in order, all or nothing; returns the files moved, directly or below a moved directory. */
export async function moveNodes(uow: UnitOfWork<MoveRepositories>, orgId: string | undefined, datasetId: string, moves: NodeMove[], actor: string): Promise<FsNodeRow[]> {
  if (moves.length === 0) throw invalidArgument("operations", "must list at least one move");
  return uow.transaction(async ({ files, tree, datasets }) => {
    const dataset = await datasetOf(datasets, orgId, datasetId);
    await files.lockAssociation(dataset.datasetId);
    const moved: FsNodeRow[] = [];
    for (const [i, op] of moves.entries()) {
      moved.push(...(await moveOne({ files, tree }, dataset.datasetId, dataset.orgId, op, `operations[${i}]`, actor)));
    }
    const ids = [...new Set(moved.filter((n) => n.fsType === "file").map((n) => n.nodeId))];
    const found = await files.nodesByIds(dataset.orgId, ids);
    return ids.flatMap((id) => found.get(id) ?? []);
  });
}

/** Applies one move; returns the moved node and, for a directory, everything below it. */
async function moveOne({ files, tree }: Pick<MoveRepositories, "files" | "tree">, associationId: string, orgId: string, op: NodeMove, field: string, actor: string): Promise<FsNodeRow[]> {
  const node = await files.findNode(orgId, op.nodeId);
  if (!node || node.associationId !== associationId || node.status !== "available") throw invalidArgument(`${field}.node_id`, `node ${quoteValue(op.nodeId)} not found in the dataset`);
  if (op.fsType && op.fsType !== node.fsType) throw invalidArgument(`${field}.fs_type`, `node ${quoteValue(op.nodeId)} is a ${node.fsType}`);
  const parent = await newParent(files, orgId, associationId, node, op, field);
  const name = op.newName === undefined ? node.name : checkRelativePath(op.newName, `${field}.new_name`);
  if (name.includes("/")) throw invalidArgument(`${field}.new_name`, "must be a single name");
  const to = parent ? `${parent.relativePath}/${name}` : name;
  if (to === node.relativePath) return [node];
  if (node.fsType === "directory" && to.startsWith(`${node.relativePath}/`)) throw invalidArgument(`${field}.new_parent_id`, "cannot move a directory below itself");
  if (await files.findAvailableAtPath(associationId, to)) throw conflict(`${quoteValue(to)} already exists`);
  const below = node.fsType === "directory" ? await tree.below(associationId, node.relativePath) : [];
  if (node.fsType === "directory") await tree.movePrefix(associationId, node.relativePath, to, actor);
  Object.assign(node, { relativePath: to, name, parentId: parent?.nodeId ?? null, modified: new Date(), modifiedBy: actor });
  return [node, ...below];
}

async function newParent(files: FileRepository, orgId: string, associationId: string, node: FsNodeRow, op: NodeMove, field: string): Promise<FsNodeRow | null> {
  if (op.newParentId === undefined) return node.parentId ? files.findNode(orgId, node.parentId) : null;
  if (op.newParentId === "" || op.newParentId === "/") return null;
  const parent = await files.findNode(orgId, op.newParentId);
  if (!parent || parent.associationId !== associationId || parent.fsType !== "directory" || parent.status !== "available") {
    throw invalidArgument(`${field}.new_parent_id`, `directory ${quoteValue(op.newParentId)} not found in the dataset`);
  }
  return parent;
}

/**
 * move_file: gives an available file a new path in its own association (`associationId` must be
 * it), creating the directories above it; a path taken by another node is a 409.
 */
export async function moveFile(
  uow: UnitOfWork<MoveRepositories>,
  orgId: string | undefined,
  move: { fileId: string; associationId: string; newPath: string },
  actor: string,
): Promise<FsNodeRow> {
  return uow.transaction(async ({ files }) => {
    const file = orgId ? await files.findNode(orgId, move.fileId) : null;
    if (!file || file.fsType !== "file" || file.status !== "available") throw notFound("file", move.fileId);
    if (file.associationId !== move.associationId) throw invalidArgument("association_id", "must be the file's own association");
    const to = checkRelativePath(move.newPath, "new_path");
    await files.lockAssociation(file.associationId);
    if (to !== file.relativePath && (await files.findAvailableAtPath(file.associationId, to))) throw conflict(`${quoteValue(to)} already exists`);
    const now = new Date();
    file.parentId = await files.ensureParents({ ...file, relativePath: to }, actor, now);
    return Object.assign(file, { relativePath: to, name: baseName(to), modified: now, modifiedBy: actor });
  });
}

// Each delete batch starts from the top again: the previous batch's files are gone.
const FIRST_BY_PATH = {
  orderBy: rawSql(`"f"."relative_path"`),
  after: rawSql("TRUE"),
  cursorColumns: rawSql(`"f"."relative_path" as page_key, "f"."node_id" as page_id`),
};

/**
 * delete_dataset_files: deletes up to DELETE_BATCH_SIZE of a dataset's files matching the path
 * patterns, first by path. Returns how many went, whether more match, and the object keys nothing
 * points at any more (for the caller to delete after the commit).
 */
export async function deleteDatasetFiles(
  uow: UnitOfWork<MoveRepositories>,
  orgId: string | undefined,
  datasetId: string,
  patterns: { includePatterns: readonly string[]; excludePatterns: readonly string[] },
): Promise<{ deleted: number; hasMore: boolean; keys: string[] }> {
  const { files, datasets } = uow.repositories();
  const dataset = await datasetOf(datasets, orgId, datasetId);
  const where = pathPatternFilter(patterns.includePatterns, patterns.excludePatterns);
  const { rows, hasMore } = await files.search(dataset.datasetId, { where, ...FIRST_BY_PATH, limit: DELETE_BATCH_SIZE });
  const keys = await uow.transaction(async (tx) => {
    const ids = rows.map((file) => file.nodeId);
    const uris = await tx.files.urisOfAll(ids);
    await tx.files.deleteNodes(ids);
    return tx.files.unreferencedKeys(uris);
  });
  return { deleted: rows.length, hasMore, keys };
}
