import type { ServiceImpl } from "@connectrpc/connect";
import {
  callerOf,
  conflict,
  invalidArgument,
  notFound,
  rawSql,
  readableOrg,
  type Principal,
  type ServiceContext,
  quoteValue,
} from "@hangar/shared";
import type { DataService, MoveOperation } from "@hangar/shared/proto/data";
import { baseName, checkRelativePath } from "../domain/paths";
import type { ObjectStore } from "../object-store/object-store";
import { DatasetStore } from "../store/dataset-store";
import type { FsNodeRow } from "../store/file-entities";
import { FileStore } from "../store/file-store";
import { pathPatternFilter } from "../store/path-filter";
import { TreeStore } from "../store/tree-store";
import { fileToProto } from "./file-mappers";

type MoveHandlers = Pick<ServiceImpl<typeof DataService>, "moveNodes" | "moveFile" | "deleteDatasetFiles">;

/** Files one delete_dataset_files call deletes at most; `has_more` asks for another call. */
export const DELETE_BATCH_SIZE = 500;

// Each delete batch starts from the top again: the previous batch's files are gone.
const FIRST_BY_PATH = {
  orderBy: rawSql(`"f"."relative_path"`),
  after: rawSql("TRUE"),
  cursorColumns: rawSql(`"f"."relative_path" as page_key, "f"."node_id" as page_id`),
};

/** Moves and bulk deletes within a dataset. */
export function createMoveHandlers(context: ServiceContext, objects: ObjectStore): MoveHandlers {
  const fork = () => new FileStore(context.orm.em.fork());
  const datasetOf = async (store: FileStore, caller: Principal, datasetId: string) => {
    const orgId = readableOrg(caller);
    const dataset = orgId ? await new DatasetStore(store.em).find(orgId, datasetId) : null;
    if (!dataset) throw notFound("dataset", datasetId);
    return dataset;
  };

  return {
    async moveNodes(req, ctx) {
      const caller = callerOf(ctx);
      if (req.operations.length === 0) throw invalidArgument("operations", "must list at least one move");
      return fork().em.transactional(async (em) => {
        const store = new FileStore(em);
        const dataset = await datasetOf(store, caller, req.datasetId);
        await store.lockAssociation(dataset.datasetId);
        const moved: FsNodeRow[] = [];
        for (const [i, op] of req.operations.entries()) {
          moved.push(...(await moveOne(store, dataset.datasetId, dataset.orgId, op, `operations[${i}]`, caller.subject)));
        }
        const ids = [...new Set(moved.filter((n) => n.fsType === "file").map((n) => n.nodeId))];
        const files = await store.nodesByIds(dataset.orgId, ids);
        return { files: ids.flatMap((id) => files.get(id) ?? []).map(fileToProto) };
      });
    },

    async moveFile(req, ctx) {
      const caller = callerOf(ctx);
      return fork().em.transactional(async (em) => {
        const store = new FileStore(em);
        const orgId = readableOrg(caller);
        const file = orgId ? await store.findNode(orgId, req.fileId) : null;
        if (!file || file.fsType !== "file" || file.status !== "available") throw notFound("file", req.fileId);
        if (file.associationId !== req.associationId) throw invalidArgument("association_id", "must be the file's own association");
        const to = checkRelativePath(req.newPath, "new_path");
        await store.lockAssociation(file.associationId);
        if (to !== file.relativePath && (await store.findAvailableAtPath(file.associationId, to))) throw conflict(`${quoteValue(to)} already exists`);
        const now = new Date();
        file.parentId = await store.ensureParents({ ...file, relativePath: to }, caller.subject, now);
        Object.assign(file, { relativePath: to, name: baseName(to), modified: now, modifiedBy: caller.subject });
        return { file: fileToProto(file) };
      });
    },

    async deleteDatasetFiles(req, ctx) {
      const caller = callerOf(ctx);
      const store = fork();
      const dataset = await datasetOf(store, caller, req.datasetId);
      const where = pathPatternFilter(req.includePatterns, req.excludePatterns);
      const { rows, hasMore } = await store.search(dataset.datasetId, { where, ...FIRST_BY_PATH, limit: DELETE_BATCH_SIZE });
      const keys = await store.em.transactional(async (em) => {
        const tx = new FileStore(em);
        const ids = rows.map((file) => file.nodeId);
        const uris = await tx.urisOfAll(ids);
        await tx.deleteNodes(ids);
        return tx.unreferencedKeys(uris);
      });
      await objects.deleteObjects(keys);
      return { successCount: BigInt(rows.length), failureCount: 0n, hasMore };
    },
  };
}

/** Applies one move; returns the moved node and, for a directory, everything below it. */
async function moveOne(store: FileStore, associationId: string, orgId: string, op: MoveOperation, field: string, actor: string): Promise<FsNodeRow[]> {
  const node = await store.findNode(orgId, op.nodeId);
  if (!node || node.associationId !== associationId || node.status !== "available") throw invalidArgument(`${field}.node_id`, `node ${quoteValue(op.nodeId)} not found in the dataset`);
  if (op.fsType && op.fsType !== node.fsType) throw invalidArgument(`${field}.fs_type`, `node ${quoteValue(op.nodeId)} is a ${node.fsType}`);
  const parent = await newParent(store, orgId, associationId, node, op, field);
  const name = op.newName === undefined ? node.name : checkRelativePath(op.newName, `${field}.new_name`);
  if (name.includes("/")) throw invalidArgument(`${field}.new_name`, "must be a single name");
  const to = parent ? `${parent.relativePath}/${name}` : name;
  if (to === node.relativePath) return [node];
  if (node.fsType === "directory" && to.startsWith(`${node.relativePath}/`)) throw invalidArgument(`${field}.new_parent_id`, "cannot move a directory below itself");
  if (await store.findAvailableAtPath(associationId, to)) throw conflict(`${quoteValue(to)} already exists`);
  const tree = new TreeStore(store);
  const below = node.fsType === "directory" ? await tree.below(associationId, node.relativePath) : [];
  if (node.fsType === "directory") await tree.movePrefix(associationId, node.relativePath, to, actor);
  Object.assign(node, { relativePath: to, name, parentId: parent?.nodeId ?? null, modified: new Date(), modifiedBy: actor });
  return [node, ...below];
}

async function newParent(store: FileStore, orgId: string, associationId: string, node: FsNodeRow, op: MoveOperation, field: string): Promise<FsNodeRow | null> {
  if (op.newParentId === undefined) return node.parentId ? store.findNode(orgId, node.parentId) : null;
  if (op.newParentId === "" || op.newParentId === "/") return null;
  const parent = await store.findNode(orgId, op.newParentId);
  if (!parent || parent.associationId !== associationId || parent.fsType !== "directory" || parent.status !== "available") {
    throw invalidArgument(`${field}.new_parent_id`, `directory ${quoteValue(op.newParentId)} not found in the dataset`);
  }
  return parent;
}
