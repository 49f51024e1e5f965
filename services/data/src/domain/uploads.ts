import { create, toBinary } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { badRequest, conflict, invalidArgument, isPlatformPath, newId, notFound, TOPICS, quoteValue, type UnitOfWork } from "@hangar/shared";
import { UploadCompletedSchema } from "@hangar/shared/proto/events";
import { s3Uri, type ObjectStore } from "../object-store/object-store";
import { isLink, newFsNode, type FsNodeRow, type UploadItemRow, type UploadTransactionRow } from "./file-records";
import type { DatasetLookup, FileRepository, UploadRepository } from "./file-repositories";
import { checkUserPath } from "./paths";
import { noNodeChanges, writeNodeChanges, type NodeChanges } from "./node-changes";
import type { DataRepositories } from "./repositories";

/** The repositories the upload use cases need. */
export type UploadRepositories = Pick<DataRepositories, "files" | "uploads" | "events"> & { datasets: DatasetLookup };

/** What opening an upload transaction is told: its target, who opens it, and the manifest (path to size). */
export interface UploadOpening {
  orgId: string;
  subject: string;
  associationId: string;
  associationType: string;
  origination: string;
  deviceId: string | null;
  manifest: Record<string, bigint>;
  /** The manifest's field, for errors. */
  field: string;
  /** An action the platform runs is uploading (an invocation's token): it may write the platform's own files. */
  platformAction?: boolean;
}

/**
 * Opens an upload transaction for a manifest (begin_batch_upload and the single-file begins):
 * pending files for new paths, next versions for existing ones, in one transaction.
 */
export async function beginUpload(uow: UnitOfWork<UploadRepositories>, objects: ObjectStore, input: UploadOpening): Promise<{ transaction: UploadTransactionRow; items: UploadItemRow[] }> {
  return uow.transaction((repositories) => openTransaction(repositories, objects, input));
}

/** Opens a transaction for a manifest: pending files for new paths, next versions for existing ones. */
async function openTransaction(
  { files, uploads }: Pick<UploadRepositories, "files" | "uploads">,
  objects: ObjectStore,
  input: UploadOpening,
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
    createdBy: input.subject,
    completed: null,
  };
  const checked = checkManifest(entries, input.field, input.platformAction);
  // One lookup for the whole manifest: a query per entry would also flush every pending file first.
  const existing = await files.availableAtPaths(input.associationId, checked.map((entry) => entry.path));
  const pendingFiles: FsNodeRow[] = [];
  const items = checked.map(({ path, size }): UploadItemRow => {
    const fileId = existing.get(path)?.nodeId ?? newId("fl");
    if (!existing.has(path)) pendingFiles.push(pendingFile(transaction, fileId, path, size, s3Uri(objects.location.bucket, prefix + path), input.subject, now));
    return { transactionId, relativePath: path, size: String(size), objectKey: prefix + path, fileId, uploaded: false };
  });
  // Three statements whatever the manifest's size.
  await files.insertNodes(pendingFiles);
  await uploads.insertTransaction(transaction);
  await uploads.insertItems(items);
  return { transaction, items };
}

/** Validates a manifest's paths and sizes, in order; two entries may not name the same path. */
function checkManifest(entries: [string, bigint][], field: string, platformAction = false): { path: string; size: bigint }[] {
  const seen = new Set<string>();
  return entries.map(([rawPath, size]) => {
    const path = checkUserPath(rawPath, `${field}.${rawPath}`, platformAction);
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
async function loadTransaction(uploads: UploadRepository, orgId: string, transactionId: string, lock = false): Promise<UploadTransactionRow> {
  const transaction = await uploads.transaction(orgId, transactionId, lock);
  if (!transaction) throw notFound("upload transaction", transactionId);
  if (transaction.status === "aborted") throw conflict(`upload transaction ${quoteValue(transactionId)} was aborted`);
  return transaction;
}

/**
 * Checks that each item's bytes are in the object store with the manifest's size. Every check runs
 * before anything is written, so a refused completion changes nothing.
 */
async function checkUploaded(objects: ObjectStore, items: UploadItemRow[], field: (item: UploadItemRow) => string): Promise<void> {
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

/** What making a batch of items available writes: each kind of change in one statement. */
interface AvailabilityChanges extends NodeChanges {
  /** Pending files no longer needed: their path's existing file got the new version. */
  dropped: string[];
}

/**
 * Makes items' files available: a new path's pending file turns available, an existing path's file
 * gets a new version pointing at the new bytes. Runs under the association's path lock so that
 * concurrent uploads of one path end as successive versions of one file. Every check runs before
 * anything is written, and the writes are a statement per kind of change, whatever the batch.
 */
async function makeAvailable(
  { files, uploads }: Pick<UploadRepositories, "files" | "uploads">,
  transaction: UploadTransactionRow,
  items: UploadItemRow[],
  bucket: string,
  actor: string,
): Promise<void> {
  await files.lockAssociation(transaction.associationId);
  const now = new Date();
  const changes: AvailabilityChanges = { ...noNodeChanges(), dropped: [] };
  // Loaded up front, in two queries (paths with their directories, and pending files): the loop
  // below then reads only what they loaded.
  await files.prefetchPaths(transaction.associationId, items.map((item) => item.relativePath));
  const byId = await files.nodesByIds(transaction.orgId, items.map((item) => item.fileId));
  for (const item of items) await planAvailable(files, changes, byId, { transaction, item, uri: s3Uri(bucket, item.objectKey), actor, now });
  await writeNodeChanges(files, changes);
  await uploads.updateItems(items);
  await files.deleteNodes(changes.dropped);
}

/** Works out one item's change into `changes` (refusing a path that cannot take the bytes), and marks the item uploaded. */
async function planAvailable(
  files: FileRepository,
  changes: AvailabilityChanges,
  byId: Map<string, FsNodeRow>,
  { transaction, item, uri, actor, now }: { transaction: UploadTransactionRow; item: UploadItemRow; uri: string; actor: string; now: Date },
): Promise<void> {
  const current = await files.nodeAtPath(transaction.associationId, item.relativePath);
  const pending = current?.nodeId === item.fileId ? null : (byId.get(item.fileId) ?? null);
  if (current?.fsType === "directory") throw conflict(`${quoteValue(item.relativePath)} is a directory`);
  // A link keeps its path until it is deleted: its target's bytes must not be replaced through it.
  if (current && isLink(current)) throw conflict(`${quoteValue(item.relativePath)} is a link`);
  if (current) {
    changes.versions.push({ ...current });
    Object.assign(current, { uri, size: item.size, version: String(BigInt(current.version) + 1n), uploadId: transaction.transactionId, modified: now, modifiedBy: actor });
    if (pending && pending.status === "pending") changes.dropped.push(pending.nodeId);
    item.fileId = current.nodeId;
    changes.updated.push(current);
  } else if (pending) {
    const { parentId, directories } = await files.planParents(pending, actor, now);
    changes.inserted.push(...directories);
    Object.assign(pending, { parentId, status: "available", uri, size: item.size, modified: now, modifiedBy: actor });
    changes.updated.push(pending);
  } else {
    throw badRequest(`the file of ${quoteValue(item.relativePath)} no longer exists`);
  }
  item.uploaded = true;
}

/** Marks a transaction completed and writes its one upload-completed event (same transaction). */
async function finishTransaction({ files, uploads, events }: Pick<UploadRepositories, "files" | "uploads" | "events">, transaction: UploadTransactionRow, actor: string): Promise<void> {
  transaction.status = "completed";
  transaction.completed = new Date();
  await uploads.updateStatuses([transaction]);
  const items = await uploads.items(transaction.transactionId);
  const byId = await files.nodesByIds(transaction.orgId, items.map((item) => item.fileId));
  // The platform's own files (derived representations) are no upload of the user's: triggers and
  // ingestion rules must not run on them, or ingesting would ingest its own output.
  const nodes = items.map((item) => byId.get(item.fileId) ?? null).filter((f) => f === null || !isPlatformPath(f.relativePath));
  if (items.length > 0 && nodes.length === 0) return;
  const payload = create(UploadCompletedSchema, {
    orgId: transaction.orgId,
    transactionId: transaction.transactionId,
    associationId: transaction.associationId,
    associationType: transaction.associationType,
    files: nodes.filter((f): f is FsNodeRow => f !== null).map((f) => ({ fileId: f.nodeId, relativePath: f.relativePath, size: BigInt(f.size), uri: f.uri ?? "", version: BigInt(f.version) })),
    completed: timestampNow(),
    completedBy: actor,
  });
  events.record({ topic: TOPICS.uploadCompleted, key: transaction.associationId, payload: toBinary(UploadCompletedSchema, payload) });
}

/** An open transaction of the org (completed or aborted ones are a 409), locked with `lock` (in a transaction). */
async function openOf(uploads: UploadRepository, orgId: string, transactionId: string, lock = false): Promise<UploadTransactionRow> {
  const transaction = await loadTransaction(uploads, orgId, transactionId, lock);
  if (transaction.status !== "open") throw conflict(`upload transaction ${quoteValue(transactionId)} is already completed`);
  return transaction;
}

/** An open upload transaction of the org, for credentials to its prefix. */
export async function openUpload(uow: UnitOfWork<UploadRepositories>, orgId: string, transactionId: string): Promise<UploadTransactionRow> {
  return openOf(uow.repositories().uploads, orgId, transactionId);
}

/**
 * complete_upload: checks every not-yet-uploaded item's bytes, makes the files available and
 * records the upload-completed event, all in one transaction that holds the transaction's row.
 * With `datasetId` (the dataset route) the transaction must be that dataset's (404 otherwise).
 * Completing twice changes nothing; returns whether this call completed it.
 */
export async function completeUpload(
  uow: UnitOfWork<UploadRepositories>,
  objects: ObjectStore,
  actor: { orgId: string; subject: string },
  transactionId: string,
  datasetId?: string,
): Promise<boolean> {
  return uow.transaction(async (repositories) => {
    const transaction = await loadTransaction(repositories.uploads, actor.orgId, transactionId, true);
    if (datasetId !== undefined && transaction.associationId !== datasetId) throw notFound("upload", transactionId);
    if (transaction.status === "completed") return false;
    const pending = (await repositories.uploads.items(transactionId)).filter((item) => !item.uploaded);
    await checkUploaded(objects, pending, (item) => `upload '${item.relativePath}'`);
    await makeAvailable(repositories, transaction, pending, objects.location.bucket, actor.subject);
    await finishTransaction(repositories, transaction, actor.subject);
    return true;
  });
}

/** One item a progress report marked: its object's URI and the file it became. */
export interface MarkedItem {
  uri: string;
  fileId: string;
}

/**
 * report_upload_progress: makes the items named by `uris` (`s3://` URIs of the manifest's
 * objects) available once their bytes check out; the transaction completes (with its event) when
 * every item is in. All in one transaction; an unknown URI is a 400 naming its index.
 */
export async function reportUploadProgress(
  uow: UnitOfWork<UploadRepositories>,
  objects: ObjectStore,
  actor: { orgId: string; subject: string },
  transactionId: string,
  uris: string[],
): Promise<{ items: MarkedItem[]; done: boolean }> {
  const uriOf = (item: UploadItemRow) => `s3://${objects.location.bucket}/${item.objectKey}`;
  return uow.transaction(async (repositories) => {
    const transaction = await openOf(repositories.uploads, actor.orgId, transactionId, true);
    const items = await repositories.uploads.items(transaction.transactionId);
    const byUri = new Map(items.map((item) => [uriOf(item), item]));
    const marked = uris.map((uri, i) => {
      const item = byUri.get(uri);
      if (!item) throw invalidArgument(`manifest_items[${i}]`, `${quoteValue(uri)} is not in the transaction's manifest`);
      return item;
    });
    const fresh = marked.filter((item, i) => !item.uploaded && marked.indexOf(item) === i);
    await checkUploaded(objects, fresh, (item) => `manifest_items[${marked.indexOf(item)}]`);
    await makeAvailable(repositories, transaction, fresh, objects.location.bucket, actor.subject);
    const done = items.every((item) => item.uploaded);
    if (done) await finishTransaction(repositories, transaction, actor.subject);
    return { items: marked.map((item) => ({ uri: uriOf(item), fileId: item.fileId })), done };
  });
}

/**
 * abort_transactions: aborts open transactions of the org and removes their pending files, all or
 * nothing: an unknown id is a 400 naming its index, a completed one a 409. Aborting twice is
 * harmless. Returns the object keys of their items, for the caller to delete after the commit.
 */
export async function abortTransactions(uow: UnitOfWork<UploadRepositories>, orgId: string, transactionIds: string[]): Promise<string[]> {
  return uow.transaction(async ({ files, uploads }) => {
    const transactions = await uploads.transactionsByIds(orgId, transactionIds);
    transactionIds.forEach((id, i) => {
      const transaction = transactions.get(id);
      if (!transaction) throw invalidArgument(`transaction_ids[${i}]`, `upload transaction ${quoteValue(id)} not found`);
      if (transaction.status === "completed") throw conflict(`upload transaction ${quoteValue(id)} is already completed`);
    });
    const open = [...transactions.values()].filter((transaction) => transaction.status === "open");
    for (const transaction of open) transaction.status = "aborted";
    await uploads.updateStatuses(open);
    const items = await uploads.itemsOfAll(open.map((transaction) => transaction.transactionId));
    const pending = await files.nodesByIds(orgId, items.map((item) => item.fileId));
    await files.deleteNodes([...pending.values()].filter((file) => file.status === "pending").map((file) => file.nodeId));
    return items.map((item) => item.objectKey);
  });
}

/** The key prefix of a dataset's objects (`<org>/<dataset>/`), for credentials to it; no readable org or dataset is a 404. */
export async function datasetPrefix(uow: UnitOfWork<UploadRepositories>, orgId: string | undefined, datasetId: string): Promise<string> {
  const dataset = orgId ? await uow.repositories().datasets.find(orgId, datasetId) : null;
  if (!dataset) throw notFound("dataset", datasetId);
  return `${dataset.orgId}/${dataset.datasetId}/`;
}
