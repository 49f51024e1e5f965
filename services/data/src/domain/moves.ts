import { conflict, invalidArgument, notFound, quoteValue, rawSql, type UnitOfWork } from "@hangar/shared";
import type { FsNodeRow } from "./file-records";
import { ingestableAt } from "./ingestable";
import type { DatasetLookup, TreeRepository } from "./file-repositories";
import { isRootParent, planMoves, type NodeMove } from "./move-plan";
import { baseName, checkUserPath } from "./paths";
import { pathPatternFilter } from "./path-filter";
import type { DataRepositories } from "./repositories";

/** The repositories of moves and bulk deletes. */
export type MoveRepositories = Pick<DataRepositories, "files" | "tree"> & { datasets: DatasetLookup };

/** Files one delete_dataset_files call deletes at most; `has_more` asks for another call. */
export const DELETE_BATCH_SIZE = 500;

/** A dataset of the org; no readable org, or no such dataset, is a 404. */
async function datasetOf(datasets: DatasetLookup, orgId: string | undefined, datasetId: string): Promise<{ datasetId: string; orgId: string }> {
  const dataset = orgId ? await datasets.find(orgId, datasetId) : null;
  if (!dataset) throw notFound("dataset", datasetId);
  return dataset;
}

/**
 * move_nodes: applies moves in order, all or nothing, as if one by one (each sees the moves before
 * it); returns the files moved, directly or below a moved directory. The cost does not grow with
 * the batch beyond its rows: the moved nodes and their parents, then everything below the moved
 * directories, are read with a query each, the moves are worked out in memory, every destination
 * is checked with one query, and the new places are written with one statement.
 */
export async function moveNodes(uow: UnitOfWork<MoveRepositories>, orgId: string | undefined, datasetId: string, moves: NodeMove[], actor: string): Promise<FsNodeRow[]> {
  if (moves.length === 0) throw invalidArgument("operations", "must list at least one move");
  return uow.transaction(async ({ files, tree, datasets }) => {
    const dataset = await datasetOf(datasets, orgId, datasetId);
    await files.lockAssociation(dataset.datasetId);
    const loaded = await loadMoveBatch(tree, dataset, moves);
    const plan = planMoves(dataset.datasetId, moves, loaded.values());
    const taken = await files.availableAtPaths(dataset.datasetId, plan.destinations);
    // Nodes the batch did not load keep their paths, so the store's answer holds for every move.
    const clash = plan.destinations.find((path) => {
      const node = taken.get(path);
      return node !== undefined && !loaded.has(node.nodeId);
    });
    if (clash !== undefined) throw conflict(`${quoteValue(clash)} already exists`);
    if (plan.refusal !== undefined) throw plan.refusal;
    await tree.relocate(plan.places, actor);
    const moved = new Map((await tree.byIds(dataset.orgId, plan.fileIds)).map((file) => [file.nodeId, file]));
    return plan.fileIds.flatMap((id) => moved.get(id) ?? []);
  });
}

/**
 * Reads what a batch of moves needs, a query per kind whatever the batch size: the moved nodes and
 * the directories named as new parents, the current parents of nodes that keep theirs, and
 * everything below the moved directories. By id.
 */
async function loadMoveBatch(tree: TreeRepository, dataset: { datasetId: string; orgId: string }, moves: NodeMove[]): Promise<Map<string, FsNodeRow>> {
  const named = moves.flatMap((move) => (move.newParentId === undefined || isRootParent(move.newParentId) ? [move.nodeId] : [move.nodeId, move.newParentId]));
  const loaded = byId(await tree.byIds(dataset.orgId, [...new Set(named)]));
  const parentIds = moves.flatMap((move) => (move.newParentId === undefined ? (loaded.get(move.nodeId)?.parentId ?? []) : []));
  const missing = [...new Set(parentIds)].filter((id) => !loaded.has(id));
  for (const node of await tree.byIds(dataset.orgId, missing)) loaded.set(node.nodeId, node);
  const directories = moves.flatMap((move) => {
    const node = loaded.get(move.nodeId);
    return node?.fsType === "directory" && node.associationId === dataset.datasetId && node.status === "available" ? [node.relativePath] : [];
  });
  for (const node of await tree.subtrees(dataset.datasetId, [...new Set(directories)])) if (!loaded.has(node.nodeId)) loaded.set(node.nodeId, node);
  return loaded;
}

function byId(nodes: FsNodeRow[]): Map<string, FsNodeRow> {
  return new Map(nodes.map((node) => [node.nodeId, node]));
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
    const to = checkUserPath(move.newPath, "new_path");
    await files.lockAssociation(file.associationId);
    if (to !== file.relativePath && (await files.findAvailableAtPath(file.associationId, to))) throw conflict(`${quoteValue(to)} already exists`);
    const now = new Date();
    file.parentId = await files.ensureParents({ ...file, relativePath: to }, actor, now);
    Object.assign(file, { relativePath: to, name: baseName(to), modified: now, modifiedBy: actor });
    return Object.assign(file, ingestableAt(await files.ingestableVerdicts(file.orgId, [to]), file));
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
