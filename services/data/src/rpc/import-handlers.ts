import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, conflict, invalidArgument, notFound, readableOrg, requireOrg, type ServiceContext, quoteValue } from "@hangar/shared";
import type { DataService, LinkFileRequest } from "@hangar/shared/proto/data";
import { checkRelativePath } from "../domain/paths";
import type { ObjectStore } from "../object-store/object-store";
import { DatasetStore } from "../store/dataset-store";
import { liveAssociationFilter } from "../store/deleted-associations";
import { FsNode, type FsNodeRow } from "../store/file-entities";
import { FileStore } from "../store/file-store";
import { fileToProto } from "./file-mappers";
import { applyImports, checkAncestors, newFileNode, planImport, planImports } from "./imports";

type ImportHandlers = Pick<ServiceImpl<typeof DataService>, "importFile" | "importFiles" | "linkFile" | "fileDeviceIds">;

/** Most file ids one file_device_ids call may name. */
export const MAX_DEVICE_ID_FILES = 1000;

/**
 * Files whose bytes already exist: imports of objects in the platform's bucket, links to another
 * file's version, and the devices a set of files came from.
 */
export function createImportHandlers(context: ServiceContext, objects: ObjectStore): ImportHandlers {
  const fork = () => context.orm.em.fork();

  return {
    async importFile(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = requireOrg(caller);
      const plan = await planImport(objects, orgId, req, "");
      const [file] = await applyImports(fork(), orgId, [plan], caller.subject);
      return { file: fileToProto(file!) };
    },

    async importFiles(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = requireOrg(caller);
      const plans = await planImports(objects, orgId, req.requests);
      const files = await applyImports(fork(), orgId, plans, caller.subject);
      return { files: files.map(fileToProto) };
    },

    async linkFile(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = requireOrg(caller);
      return fork().transactional(async (em) => {
        const file = await linkOne(new FileStore(em), orgId, req, caller.subject);
        return { file: fileToProto(file) };
      });
    },

    async fileDeviceIds(req, ctx) {
      if (req.fileIds.length > MAX_DEVICE_ID_FILES) throw invalidArgument("file_ids", `must name at most ${MAX_DEVICE_ID_FILES} files`);
      const orgId = readableOrg(callerOf(ctx));
      if (!orgId || req.fileIds.length === 0) return { deviceIds: [] };
      const rows = await fork().find(FsNode, { orgId, nodeId: { $in: req.fileIds }, fsType: "file", deviceId: { $ne: null }, ...liveAssociationFilter() }, { fields: ["deviceId"] });
      return { deviceIds: [...new Set(rows.map((row) => row.deviceId!))].sort() };
    },
  };
}

/**
 * Adds a file to a dataset that points at a version of another file of the org: the same object
 * and size, and the same storage type, description, device, tags, metadata and origination (a
 * link reads as a copy made without copying bytes). It is a file of its own: version 1, not yet
 * ingested, and later changes to either file leave the other alone. The path defaults to the
 * target's path; a taken path is a 409.
 */
async function linkOne(store: FileStore, orgId: string, req: LinkFileRequest, actor: string): Promise<FsNodeRow> {
  const dataset = await new DatasetStore(store.em).find(orgId, req.associationId);
  if (!dataset) throw notFound("dataset", req.associationId);
  const target = await linkTarget(store, orgId, req);
  const path = req.relativePath === undefined ? target.relativePath : checkRelativePath(req.relativePath, "relative_path");
  await store.lockAssociation(dataset.datasetId);
  if (await store.findAvailableAtPath(dataset.datasetId, path)) throw conflict(`relative_path: ${quoteValue(path)} already exists`);
  await checkAncestors(store, dataset.datasetId, path, "relative_path");
  const now = new Date();
  const file: FsNodeRow = {
    ...newFileNode(orgId, dataset.datasetId, path, actor, now),
    uri: target.uri,
    size: target.size,
    storageType: target.storageType,
    description: target.description,
    deviceId: target.deviceId,
    tags: [...target.tags],
    metadata: { ...target.metadata },
    origination: target.origination,
  };
  file.parentId = await store.ensureParents(file, actor, now);
  store.addNode(file);
  return file;
}

/** The version a link points at: the target's current one, or an earlier snapshot. */
async function linkTarget(store: FileStore, orgId: string, req: LinkFileRequest): Promise<FsNodeRow> {
  if (req.targetFileId === "") throw invalidArgument("target_file_id", "is required");
  const file = await store.findNode(orgId, req.targetFileId);
  if (!file || file.fsType !== "file") throw notFound("file", req.targetFileId);
  if (req.targetVersion === undefined || String(req.targetVersion) === file.version) {
    if (file.status !== "available" || !file.uri) throw invalidArgument("target_file_id", `file ${quoteValue(req.targetFileId)} is still being uploaded`);
    return file;
  }
  const earlier = await store.version(file.nodeId, req.targetVersion);
  if (!earlier?.uri) throw notFound("file version", `${file.nodeId}@${req.targetVersion}`);
  return earlier;
}
