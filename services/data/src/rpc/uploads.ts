import { create, toBinary } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { badRequest, conflict, invalidArgument, newId, notFound, recordEvent, TOPICS, type Principal, quoteValue } from "@hangar/shared";
import { UploadCompletedSchema } from "@hangar/shared/proto/events";
import type { Association } from "@hangar/shared/proto/data";
import { checkRelativePath } from "../domain/paths";
import { s3Uri, type ObjectStore } from "../object-store/object-store";
import { newFsNode, type FsNodeRow, type UploadItemRow, type UploadTransactionRow } from "../store/file-entities";
import { FileStore } from "../store/file-store";
import { resolveAssociation, type ResolvedAssociation } from "../domain/associations";
import { bindDataRepositories } from "../store/repositories";

/** How long upload and download credentials live (the wire needs at least 15 minutes). */
export const CREDENTIALS_TTL_SECONDS = 3600;

/** The association an upload targets (a dataset, org, device or device type), checked to be usable by the caller. */
export async function uploadTarget(
  store: FileStore,
  caller: Principal,
  association: Pick<Association, "associationId" | "associationType"> | undefined,
  field: string,
): Promise<ResolvedAssociation> {
  if (!association) throw invalidArgument(field, "is required");
  return resolveAssociation(bindDataRepositories(store.em), caller, association, `${field}.association_type`);
}

/** Opens a transaction for a manifest: pending files for new paths, next versions for existing ones. */
export async function openTransaction(
  store: FileStore,
  objects: ObjectStore,
  input: { orgId: string; caller: Principal; associationId: string; associationType: string; origination: string; deviceId: string | null; manifest: Record<string, bigint>; field: string },
): Promise<{ transaction: UploadTransactionRow; items: UploadItemRow[] }> {
  const entries = Object.entries(input.manifest);
  if (entries.length === 0) throw invalidArgument(input.field, "must list at least one file");
  // At most 10,000 entries: resource_manifest's declared limit (proto/hangar/data/v1/file.proto),
  // which the limits interceptor enforces before any handler runs; a single-file upload has one.
  const now = new Date();
  const transactionId = newId("tx");
  const prefix = `${input.orgId}/${input.associationId}/${transactionId}/`;
  const transaction: UploadTransactionRow = {
    transactionId,
    orgId: input.orgId,
    associationId: input.associationId,
    associationType: input.associationType,
    origination: input.origination,
    deviceId: input.deviceId,
    prefix,
    status: "open",
    created: now,
    createdBy: input.caller.subject,
    completed: null,
  };
  const checked = checkManifest(entries, input.field);
  // One lookup for the whole manifest: a query per entry would also flush every pending file first.
  const existing = await store.availableAtPaths(input.associationId, checked.map((entry) => entry.path));
  const items = checked.map(({ path, size }): UploadItemRow => {
    const fileId = existing.get(path)?.nodeId ?? newId("fl");
    if (!existing.has(path)) store.addNode(pendingFile(transaction, fileId, path, size, s3Uri(objects.location.bucket, prefix + path), input.caller.subject, now));
    return { transactionId, relativePath: path, size: String(size), objectKey: prefix + path, fileId, uploaded: false };
  });
  store.addTransaction(transaction);
  for (const item of items) store.addItem(item);
  return { transaction, items };
}

/** Validates a manifest's paths and sizes, in order; two entries may not name the same path. */
function checkManifest(entries: [string, bigint][], field: string): { path: string; size: bigint }[] {
  const seen = new Set<string>();
  return entries.map(([rawPath, size]) => {
    const path = checkRelativePath(rawPath, `${field}.${rawPath}`);
    if (seen.has(path)) throw invalidArgument(`${field}.${rawPath}`, `names the same path as another entry (${quoteValue(path)})`);
    seen.add(path);
    if (size < 0n) throw invalidArgument(`${field}.${rawPath}`, "size must not be negative");
    return { path, size };
  });
}

function pendingFile(tx: UploadTransactionRow, fileId: string, path: string, size: bigint, uri: string, actor: string, now: Date): FsNodeRow {
  return newFsNode({
    nodeId: fileId,
    orgId: tx.orgId,
    associationId: tx.associationId,
    associationType: tx.associationType,
    fsType: "file",
    relativePath: path,
    status: "pending",
    size: String(size),
    uri,
    deviceId: tx.deviceId,
    origination: tx.origination,
    uploadId: tx.transactionId,
    created: now,
    createdBy: actor,
  });
}

/**
 * Loads an open transaction of the caller's org; completed ones are reported through `completed`.
 * `lock` (in a transaction) keeps its row locked: a completion locks it, so that it either ends
 * before a delete of the owner aborts the transaction or sees it aborted.
 */
export async function loadTransaction(store: FileStore, orgId: string, transactionId: string, lock = false): Promise<UploadTransactionRow> {
  const transaction = await store.transaction(orgId, transactionId, lock);
  if (!transaction) throw notFound("upload transaction", transactionId);
  if (transaction.status === "aborted") throw conflict(`upload transaction ${quoteValue(transactionId)} was aborted`);
  return transaction;
}

/**
 * Checks that each item's bytes are in the object store with the manifest's size. Every check runs
 * before anything is written, so a refused completion changes nothing.
 */
export async function checkUploaded(objects: ObjectStore, items: UploadItemRow[], field: (item: UploadItemRow) => string): Promise<void> {
  const heads = await mapConcurrently(items, HEAD_CONCURRENCY, (item) => objects.head(item.objectKey));
  items.forEach((item, i) => {
    const head = heads[i];
    if (!head) throw invalidArgument(field(item), `${quoteValue(item.relativePath)} has not been uploaded`);
    if (head.size !== Number(item.size)) {
      throw invalidArgument(field(item), `${quoteValue(item.relativePath)} is ${head.size} bytes but the manifest says ${item.size}`);
    }
  });
}

/** Object-store lookups in flight at once while checking a transaction. */
const HEAD_CONCURRENCY = 16;

/** Maps `items` with at most `limit` calls in flight, keeping the order. */
async function mapConcurrently<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Makes items' files available: a new path's pending file turns available, an existing path's file
 * gets a new version pointing at the new bytes. Runs under the association's path lock so that
 * concurrent uploads of one path end as successive versions of one file.
 */
export async function makeAvailable(store: FileStore, transaction: UploadTransactionRow, items: UploadItemRow[], bucket: string, actor: string): Promise<FsNodeRow[]> {
  await store.lockAssociation(transaction.associationId);
  const now = new Date();
  const files: FsNodeRow[] = [];
  // Loaded up front, in two queries (paths with their directories, and pending files): per-item
  // lookups would each flush the growing unit of work.
  await store.prefetchPaths(transaction.associationId, items.map((item) => item.relativePath));
  const byId = await store.nodesByIds(transaction.orgId, items.map((item) => item.fileId));
  for (const item of items) {
    const uri = s3Uri(bucket, item.objectKey);
    const current = await store.nodeAtPath(transaction.associationId, item.relativePath);
    const pending = current?.nodeId === item.fileId ? null : (byId.get(item.fileId) ?? null);
    if (current?.fsType === "directory") throw conflict(`${quoteValue(item.relativePath)} is a directory`);
    if (current) {
      store.snapshot(current);
      Object.assign(current, { uri, size: item.size, version: String(BigInt(current.version) + 1n), uploadId: transaction.transactionId, modified: now, modifiedBy: actor });
      if (pending && pending.status === "pending") store.remove(pending);
      item.fileId = current.nodeId;
      files.push(current);
    } else if (pending) {
      pending.parentId = await store.ensureParents(pending, actor, now);
      Object.assign(pending, { status: "available", uri, size: item.size, modified: now, modifiedBy: actor });
      files.push(pending);
    } else {
      throw badRequest(`the file of ${quoteValue(item.relativePath)} no longer exists`);
    }
    item.uploaded = true;
  }
  return files;
}

/** Marks a transaction completed and writes its one upload-completed event (same transaction). */
export async function finishTransaction(store: FileStore, transaction: UploadTransactionRow, actor: string): Promise<void> {
  transaction.status = "completed";
  transaction.completed = new Date();
  const items = await store.items(transaction.transactionId);
  const byId = await store.nodesByIds(transaction.orgId, items.map((item) => item.fileId));
  const files = items.map((item) => byId.get(item.fileId) ?? null);
  const payload = create(UploadCompletedSchema, {
    orgId: transaction.orgId,
    transactionId: transaction.transactionId,
    associationId: transaction.associationId,
    associationType: transaction.associationType,
    files: files.filter((f): f is FsNodeRow => f !== null).map((f) => ({ fileId: f.nodeId, relativePath: f.relativePath, size: BigInt(f.size), uri: f.uri ?? "", version: BigInt(f.version) })),
    completed: timestampNow(),
    completedBy: actor,
  });
  recordEvent(store.em, { topic: TOPICS.uploadCompleted, key: transaction.associationId, payload: toBinary(UploadCompletedSchema, payload) });
}
