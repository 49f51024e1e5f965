import { create, toBinary } from "@bufbuild/protobuf";
import { timestampNow, type Value } from "@bufbuild/protobuf/wkt";
import {
  applyFieldChanges,
  applyTagChanges,
  badRequest,
  compileKeysetOrder,
  createFieldCatalog,
  decodeCursorToken,
  encodeCursorToken,
  invalidArgument,
  notFound,
  nullableString,
  queryFingerprint,
  quoteValue,
  resolveLimit,
  TOPICS,
  type MetadataChanges,
  type UnitOfWork,
} from "@hangar/shared";
import { FileChangedSchema } from "@hangar/shared/proto/events";
import { checkTags } from "./datasets";
import { isLink, type FsNodeRow } from "./file-records";
import type { FileRepository } from "./file-repositories";
import { pathPatternFilter } from "./path-filter";
import type { DataRepositories, EventRepository } from "./repositories";

/** The repositories the file record use cases need. */
export type FileRepositories = Pick<DataRepositories, "files" | "events">;

/** Who acts: the org the call reads or writes in (undefined: an org the caller may not read) and the subject. */
export interface Actor {
  orgId: string | undefined;
  subject: string;
}

/**
 * A file of the org by id, locked for update with `lock` (in a transaction). No org, a directory,
 * another org's node and a deleted owner's file are all a 404, so nothing leaks.
 */
export async function loadFile(files: FileRepository, orgId: string | undefined, fileId: string, lock = false): Promise<FsNodeRow> {
  const file = orgId ? await files.findNode(orgId, fileId, lock) : null;
  if (!file || file.fsType !== "file") throw notFound("file", fileId);
  return file;
}

/** A file as it was at `version` (its current state when omitted or current); an unknown version is a 404. */
export async function atVersion(files: FileRepository, file: FsNodeRow, version: bigint | undefined): Promise<FsNodeRow> {
  if (version === undefined || String(version) === file.version) return file;
  const earlier = await files.version(file.nodeId, version);
  if (!earlier) throw notFound("file version", `${file.nodeId}@${version}`);
  return earlier;
}

/** Marks file versions an auto-ingesting ingestion rule matched at upload (the compute service's word); another org's are left. */
export async function markFilesIngestable(uow: UnitOfWork<FileRepositories>, orgId: string | undefined, files: readonly { fileId: string; version: bigint }[]): Promise<void> {
  if (orgId) await uow.repositories().files.markIngestable(orgId, files);
}

/** get_file: a file of the org by id, at a version. */
export async function getFile(uow: UnitOfWork<FileRepositories>, orgId: string | undefined, fileId: string, version: bigint | undefined): Promise<FsNodeRow> {
  const { files } = uow.repositories();
  return atVersion(files, await loadFile(files, orgId, fileId), version);
}

/**
 * get_file_by_path: the file at a path of an association (the available one, else the newest
 * pending one), at a version. `label` names the file in the 404 as the request named it.
 */
export async function getFileByPath(
  uow: UnitOfWork<FileRepositories>,
  at: { orgId: string | undefined; associationId: string; path: string; label: string },
  version: bigint | undefined,
): Promise<FsNodeRow> {
  const { files } = uow.repositories();
  const file = await files.readByPath(at.associationId, at.path);
  if (!file || file.orgId !== at.orgId) throw notFound("file", at.label);
  return atVersion(files, file, version);
}

/**
 * What update_file changes. Nullable strings come as sent and are read after the file is found,
 * so an unknown file is a 404 whatever else the request holds.
 */
export interface FileUpdate {
  fileId: string;
  description?: Value | undefined;
  deviceId?: Value | undefined;
  metadataChangeset?: MetadataChanges | undefined;
  ingestionComplete?: boolean | undefined;
}

/**
 * update_file: the file's next version with the changes applied, its earlier state kept as a
 * snapshot, and a file-changed event, in one transaction. The row is locked: two updates at once
 * would both write version N+1. A file still being uploaded cannot change (400).
 */
export async function updateFile(uow: UnitOfWork<FileRepositories>, actor: Actor, change: FileUpdate): Promise<FsNodeRow> {
  return uow.transaction(async ({ files, events }) => {
    const file = await loadFile(files, actor.orgId, change.fileId, true);
    if (file.status !== "available") throw badRequest(`file ${quoteValue(change.fileId)} is still being uploaded`);
    await files.snapshot([file]);
    const description = nullableString(change.description, "description");
    if (description !== undefined) file.description = description;
    const deviceId = nullableString(change.deviceId, "device_id");
    if (deviceId !== undefined) file.deviceId = deviceId;
    if (change.metadataChangeset) {
      file.metadata = applyFieldChanges(file.metadata, change.metadataChangeset, "metadata_changeset");
      checkTags(change.metadataChangeset.putTags, "metadata_changeset.put_tags");
      file.tags = applyTagChanges(file.tags, change.metadataChangeset);
    }
    const ingested = change.ingestionComplete === true;
    if (ingested) file.ingestionStatus = "ingested";
    file.version = String(BigInt(file.version) + 1n);
    file.modified = new Date();
    file.modifiedBy = actor.subject;
    const metadataUpdated = description !== undefined || deviceId !== undefined || change.metadataChangeset !== undefined;
    recordFileChanged(events, file, { metadataUpdated, ingested }, actor.subject);
    return file;
  });
}

/** Records the file-changed event of an update in the update's transaction (the outbox). */
function recordFileChanged(events: EventRepository, file: FsNodeRow, change: { metadataUpdated: boolean; ingested: boolean }, actor: string): void {
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
  events.record({ topic: TOPICS.fileChanged, key: file.associationId, payload: toBinary(FileChangedSchema, payload) });
}

/**
 * delete_file: deletes a file with its earlier versions in one transaction; returns the object
 * keys nothing points at any more, for the caller to delete once the deletion has committed.
 */
export async function deleteFile(uow: UnitOfWork<FileRepositories>, orgId: string | undefined, fileId: string): Promise<string[]> {
  const file = await loadFile(uow.repositories().files, orgId, fileId);
  return uow.transaction(async ({ files }) => {
    const uris = await files.urisOf(file.nodeId);
    await files.deleteNode(file.nodeId);
    return files.unreferencedKeys(uris);
  });
}

/** The URI of a file's bytes, for a download URL; a file still being uploaded has none yet (400). */
export async function downloadableUri(uow: UnitOfWork<FileRepositories>, orgId: string | undefined, fileId: string): Promise<string> {
  const file = await loadFile(uow.repositories().files, orgId, fileId);
  if (file.status !== "available" || !file.uri) throw badRequest(`file ${quoteValue(fileId)} is still being uploaded`);
  // The client follows a link (its uri names the target and version) and asks for the target's URL.
  if (isLink(file)) throw invalidArgument("file_id", `${quoteValue(fileId)} is a link to ${file.uri}; ask for its target's signed URL`);
  return file.uri;
}

/** Fields an association's file listing may sort on (over `fs_nodes f`). */
export const fileSortCatalog = createFieldCatalog({
  columns: {
    relative_path: { sql: `"f"."relative_path"`, type: "text", notNull: true },
    name: { sql: `"f"."name"`, type: "text", notNull: true },
    size: { sql: `"f"."size"`, type: "number", notNull: true },
    created: { sql: `"f"."created"`, type: "timestamp", notNull: true },
    modified: { sql: `"f"."modified"`, type: "timestamp", notNull: true },
  },
});

/** A listing of an association's files as requested: sort (default by path, ascending), page and path patterns. */
export interface FileListing {
  limit?: bigint | number | undefined;
  sortBy?: string | undefined;
  sortDirection?: string | undefined;
  pageToken?: string | undefined;
  includePatterns: readonly string[];
  excludePatterns: readonly string[];
}

/** One page of a listing; `nextToken(kept)` continues after the first `kept` rows (a response may keep fewer than were read). */
export interface FileListingPage {
  rows: FsNodeRow[];
  total: number;
  nextToken(kept: number): string | undefined;
}

/**
 * query_dataset_files: a keyset page of an association's available files and their number. With
 * `inheritedFrom` (a device's device type) that type's files join in where the device has none at the path.
 */
export async function queryAssociationFiles(
  uow: UnitOfWork<FileRepositories>,
  scope: { associationId: string; inheritedFrom: string | null },
  listing: FileListing,
): Promise<FileListingPage> {
  const limit = resolveLimit(listing.limit, "limit");
  const sortBy = listing.sortBy ?? "relative_path";
  const direction = listing.sortDirection ?? "ASC";
  const fingerprintScope = { association: scope.associationId, inherited: scope.inheritedFrom, include: listing.includePatterns, exclude: listing.excludePatterns };
  const fingerprint = queryFingerprint({ sortBy, sortDirection: direction, scope: fingerprintScope });
  const order = compileKeysetOrder(sortBy, direction, fileSortCatalog, `"f"."node_id"`, "relative_path");
  const after = order.after(decodeCursorToken(listing.pageToken, fingerprint, "page_token"), "page_token");
  const where = pathPatternFilter(listing.includePatterns, listing.excludePatterns);
  const { rows, hasMore, cursors, total } = await uow.repositories().files.search(scope.associationId, { ...order, where, after, limit }, scope.inheritedFrom);
  const nextToken = (kept: number): string | undefined => {
    const last = cursors[kept - 1];
    return (hasMore || kept < rows.length) && last ? encodeCursorToken(last, fingerprint) : undefined;
  };
  return { rows, total, nextToken };
}
