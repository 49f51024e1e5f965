import { create, toBinary } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  applyFieldChanges,
  applyTagChanges,
  callerOf,
  compileKeysetOrder,
  createFieldCatalog,
  decodeCursorToken,
  encodeCursorToken,
  notFound,
  nullableString,
  queryFingerprint,
  readableOrg,
  recordEvent,
  resolveLimit,
  badRequest,
  TOPICS,
  type Principal,
  type ServiceContext,
  quoteValue,
  fitPage,
} from "@hangar/shared";
import type { DataService } from "@hangar/shared/proto/data";
import { FileSchema } from "@hangar/shared/proto/data";
import { FileChangedSchema } from "@hangar/shared/proto/events";
import { checkTags } from "../domain/datasets";
import { checkRelativePath } from "../domain/paths";
import { keyOfUri, type ObjectStore } from "../object-store/object-store";
import type { FsNodeRow } from "../store/file-entities";
import { FileStore } from "../store/file-store";
import { pathPatternFilter } from "../store/path-filter";
import { associationTypeOf, resolveAssociation, routeAssociation } from "../domain/associations";
import { bindDataRepositories } from "../store/repositories";
import { fileToProto } from "./file-mappers";
import { CREDENTIALS_TTL_SECONDS } from "./uploads";

type FileHandlers = Pick<ServiceImpl<typeof DataService>, "getFile" | "getFileByPath" | "updateFile" | "deleteFile" | "getSignedUrl" | "queryDatasetFiles">;

/** Fields a dataset's file listing may sort on. */
const fileSortCatalog = createFieldCatalog({
  columns: {
    relative_path: { sql: `"f"."relative_path"`, type: "text" },
    name: { sql: `"f"."name"`, type: "text" },
    size: { sql: `"f"."size"`, type: "number" },
    created: { sql: `"f"."created"`, type: "timestamp" },
    modified: { sql: `"f"."modified"`, type: "timestamp" },
  },
});

/** The file record operations: read by id or path (at a version), update, delete, download URL, listing. */
export function createFileHandlers(context: ServiceContext, objects: ObjectStore): FileHandlers {
  const fork = () => new FileStore(context.orm.em.fork());
  const loadFile = async (store: FileStore, caller: Principal, fileId: string, lock = false): Promise<FsNodeRow> => {
    const orgId = readableOrg(caller);
    const file = orgId ? await store.findNode(orgId, fileId, lock) : null;
    if (!file || file.fsType !== "file") throw notFound("file", fileId);
    return file;
  };
  const atVersion = async (store: FileStore, file: FsNodeRow, version: bigint | undefined): Promise<FsNodeRow> => {
    if (version === undefined || String(version) === file.version) return file;
    const earlier = await store.version(file.nodeId, version);
    if (!earlier) throw notFound("file version", `${file.nodeId}@${version}`);
    return earlier;
  };

  return {
    async getFile(req, ctx) {
      const store = fork();
      const file = await loadFile(store, callerOf(ctx), req.fileId);
      return { file: fileToProto(await atVersion(store, file, req.versionId)) };
    },

    async getFileByPath(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = readableOrg(caller);
      const path = checkRelativePath(req.urlQuotedFilePath, "url_quoted_file_path");
      // Files are stored under a device's universal id: a device named by its device_id is looked up first.
      const byDevice = associationTypeOf(req, "association_type") === "device";
      const associationId = byDevice ? (await resolveAssociation(bindDataRepositories(fork().em), caller, req, "association_type")).associationId : req.associationId;
      const file = await FileStore.readByPath(context.orm, associationId, path);
      if (!file || file.orgId !== orgId) throw notFound("file", `${req.associationId}:${path}`);
      return { file: fileToProto(await atVersion(fork(), file, req.versionId)) };
    },

    async updateFile(req, ctx) {
      const caller = callerOf(ctx);
      // Locked for the update: two updates at once would both write version N+1 of the file.
      const file = await fork().em.transactional(async (em) => {
        const store = new FileStore(em);
        const file = await loadFile(store, caller, req.fileId, true);
        if (file.status !== "available") throw badRequest(`file ${quoteValue(req.fileId)} is still being uploaded`);
        store.snapshot(file);
        const description = nullableString(req.description, "description");
        if (description !== undefined) file.description = description;
        const deviceId = nullableString(req.deviceId, "device_id");
        if (deviceId !== undefined) file.deviceId = deviceId;
        if (req.metadataChangeset) {
          file.metadata = applyFieldChanges(file.metadata, req.metadataChangeset, "metadata_changeset");
          checkTags(req.metadataChangeset.putTags, "metadata_changeset.put_tags");
          file.tags = applyTagChanges(file.tags, req.metadataChangeset);
        }
        if (req.ingestionComplete === true) file.ingestionStatus = "ingested";
        file.version = String(BigInt(file.version) + 1n);
        file.modified = new Date();
        file.modifiedBy = caller.subject;
        const metadataUpdated = description !== undefined || deviceId !== undefined || req.metadataChangeset !== undefined;
        emitFileChanged(store, file, { metadataUpdated, ingested: req.ingestionComplete === true }, caller.subject);
        return file;
      });
      context.eventsWritten();
      return { file: fileToProto(file) };
    },

    async deleteFile(req, ctx) {
      const store = fork();
      const file = await loadFile(store, callerOf(ctx), req.fileId);
      const keys = await store.em.transactional(async (em) => {
        const tx = new FileStore(em);
        const uris = await tx.urisOf(file.nodeId);
        await tx.deleteNode(file.nodeId);
        return tx.unreferencedKeys(uris);
      });
      await objects.deleteObjects(keys);
      return {};
    },

    async getSignedUrl(req, ctx) {
      const file = await loadFile(fork(), callerOf(ctx), req.fileId);
      if (file.status !== "available" || !file.uri) throw badRequest(`file ${quoteValue(req.fileId)} is still being uploaded`);
      const url = await objects.presignGet(keyOfUri(file.uri), {
        expiresInSeconds: CREDENTIALS_TTL_SECONDS,
        ...(req.overrideContentDisposition ? { contentDisposition: req.overrideContentDisposition } : {}),
        ...(req.overrideContentType ? { contentType: req.overrideContentType } : {}),
      });
      return { url };
    },

    async queryDatasetFiles(req, ctx) {
      const ref = routeAssociation(req);
      if (req.includeInherited && associationTypeOf(ref, "association_type") !== "device") {
        throw badRequest("include_inherited: only a device's files can include inherited ones");
      }
      const store = fork();
      const target = await resolveAssociation(bindDataRepositories(store.em), callerOf(ctx), ref, "association_type");
      const inherited = req.includeInherited ? target.deviceTypeId : null;
      const limit = resolveLimit(req.limit, "limit");
      const sortBy = req.sortBy ?? "relative_path";
      const scope = { association: target.associationId, inherited, include: req.includePatterns, exclude: req.excludePatterns };
      const fingerprint = queryFingerprint({ sortBy, sortDirection: req.sortDirection ?? "ASC", scope });
      const order = compileKeysetOrder(sortBy, req.sortDirection ?? "ASC", fileSortCatalog, `"f"."node_id"`, "relative_path");
      const after = order.after(decodeCursorToken(req.pageToken, fingerprint, "page_token"), "page_token");
      const where = pathPatternFilter(req.includePatterns, req.excludePatterns);
      const { rows, hasMore, cursors, total } = await store.search(target.associationId, { ...order, where, after, limit }, inherited);
      // The next page starts after the last file kept: fitPage may keep fewer than were read.
      const items = fitPage(FileSchema, rows.map(fileToProto));
      const last = cursors[items.length - 1];
      const nextToken = (hasMore || items.length < rows.length) && last ? encodeCursorToken(last, fingerprint) : undefined;
      return { items, totalCount: BigInt(total), ...(nextToken ? { nextToken } : {}) };
    },
  };
}

/** Records the file-changed event of an update in the update's transaction (the outbox). */
function emitFileChanged(store: FileStore, file: FsNodeRow, change: { metadataUpdated: boolean; ingested: boolean }, actor: string): void {
  const payload = create(FileChangedSchema, {
    orgId: file.orgId,
    fileId: file.nodeId,
    associationId: file.associationId,
    associationType: file.associationType,
    relativePath: file.relativePath,
    ...change,
    occurred: timestampNow(),
    actor,
  });
  recordEvent(store.em, { topic: TOPICS.fileChanged, key: file.associationId, payload: toBinary(FileChangedSchema, payload) });
}
