import type { JsonObject } from "@bufbuild/protobuf";
import { conflict, invalidArgument, newId, notFound, quoteValue, type UnitOfWork } from "@hangar/shared";
import type { ObjectStore } from "../object-store/object-store";
import { checkTags } from "./datasets";
import { isLink, newFsNode, type FsNodeRow } from "./file-records";
import { ingestableAt, type IngestableVerdicts } from "./ingestable";
import type { DatasetLookup, FileRepository } from "./file-repositories";
import { noNodeChanges, writeNodeChanges, type NodeChanges } from "./node-changes";
import { ancestorDirectories, checkRelativePath, checkUserPath } from "./paths";
import type { DataRepositories } from "./repositories";

/** The repositories of imports and links. */
export type ImportRepositories = Pick<DataRepositories, "files"> & { datasets: DatasetLookup };

/** An import as requested (import_file, or one entry of import_files). */
export interface ImportRequest {
  datasetId: string;
  relativePath: string;
  uri: string;
  size?: bigint | undefined;
  description?: string | undefined;
  deviceId?: string | undefined;
  tags: string[];
  metadata?: JsonObject | undefined;
}

/** Most requests one import_files call may carry. */
export const MAX_IMPORT_BATCH = 500;
/** How many objects are looked up at once while checking a batch. */
const HEAD_CONCURRENCY = 16;
/** S3's limit on key length, in UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;

/** One checked import request: everything needed to write it, with the field prefix for errors. */
export interface ImportPlan {
  /** `requests[i].` in a batch, empty for import_file. */
  prefix: string;
  datasetId: string;
  path: string;
  uri: string;
  size: bigint;
  description: string | undefined;
  deviceId: string | undefined;
  tags: string[];
  metadata: JsonObject | undefined;
}

/**
 * Checks an import request and its object: the URI must name an object of the platform's bucket
 * below the org's prefix (`<org_id>/`), so that an org can never claim another org's bytes. Other
 * buckets would need a registered bucket integration, which the platform does not offer yet. The
 * object must exist, and a given `size` must be its size (otherwise the object's size is taken).
 */
export async function planImport(objects: ObjectStore, orgId: string, req: ImportRequest, prefix: string): Promise<ImportPlan> {
  const plan = checkImportFields(objects.location.bucket, orgId, req, prefix);
  const key = plan.uri.slice(`s3://${objects.location.bucket}/`.length);
  const head = await objects.head(key);
  if (!head) throw invalidArgument(`${prefix}uri`, `no object exists at ${quoteValue(plan.uri)}`);
  if (req.size !== undefined && req.size !== BigInt(head.size)) {
    throw invalidArgument(`${prefix}size`, `is ${req.size} but the object at ${quoteValue(plan.uri)} is ${head.size} bytes`);
  }
  return { ...plan, size: BigInt(head.size) };
}

/** Plans a batch: every request is checked before anything is written; the first failure wins. */
export async function planImports(objects: ObjectStore, orgId: string, requests: ImportRequest[]): Promise<ImportPlan[]> {
  if (requests.length === 0) throw invalidArgument("requests", "must list at least one import");
  if (requests.length > MAX_IMPORT_BATCH) throw invalidArgument("requests", `must list at most ${MAX_IMPORT_BATCH} imports`);
  requests.forEach((req, i) => checkImportFields(objects.location.bucket, orgId, req, `requests[${i}].`));
  checkDistinctPaths(requests);
  const plans: ImportPlan[] = [];
  for (let i = 0; i < requests.length; i += HEAD_CONCURRENCY) {
    const chunk = requests.slice(i, i + HEAD_CONCURRENCY);
    plans.push(...(await Promise.all(chunk.map((req, j) => planImport(objects, orgId, req, `requests[${i + j}].`)))));
  }
  return plans;
}

function checkImportFields(bucket: string, orgId: string, req: ImportRequest, prefix: string): Omit<ImportPlan, "size"> {
  if (req.datasetId === "") throw invalidArgument(`${prefix}dataset_id`, "is required");
  return {
    prefix,
    datasetId: req.datasetId,
    path: checkUserPath(req.relativePath, `${prefix}relative_path`),
    uri: checkImportUri(req.uri, bucket, orgId, `${prefix}uri`),
    description: req.description,
    deviceId: req.deviceId === "" ? undefined : req.deviceId,
    tags: checkTags(req.tags, `${prefix}tags`),
    metadata: req.metadata,
  };
}

/** Validates an `s3://bucket/key` URI to import; returns it unchanged. */
function checkImportUri(uri: string, bucket: string, orgId: string, field: string): string {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!match) throw invalidArgument(field, `must be an s3://bucket/key URI, got ${quoteValue(uri)}`);
  const [, given, key] = match as unknown as [string, string, string];
  if (given !== bucket) {
    throw invalidArgument(field, `bucket ${quoteValue(given)} is not the platform's bucket ${quoteValue(bucket)}; importing from other buckets needs a bucket integration, which is not available yet`);
  }
  if (!key.startsWith(`${orgId}/`)) throw invalidArgument(field, `must name an object below the org's prefix '${orgId}/'`);
  const segments = key.split("/");
  if (Buffer.byteLength(key) > MAX_KEY_BYTES || key.includes("\0") || segments.some((s) => s === "" || s === "." || s === "..")) {
    throw invalidArgument(field, `${quoteValue(uri)} is not a valid object key`);
  }
  return uri;
}

/** Two requests of a batch may not name the same file: which one should win would be a guess. */
function checkDistinctPaths(requests: ImportRequest[]): void {
  const seen = new Map<string, number>();
  requests.forEach((req, i) => {
    const id = `${req.datasetId}\0${checkRelativePath(req.relativePath, `requests[${i}].relative_path`)}`;
    const first = seen.get(id);
    if (first !== undefined) throw invalidArgument(`requests[${i}].relative_path`, `names the same file as requests[${first}]`);
    seen.set(id, i);
  });
}

/**
 * Writes planned imports in one transaction (all or nothing), in request order. The datasets must
 * be the org's; their paths are locked (in a fixed order, so concurrent batches cannot deadlock).
 */
export async function applyImports(uow: UnitOfWork<ImportRepositories>, orgId: string, plans: ImportPlan[], actor: string): Promise<FsNodeRow[]> {
  return uow.transaction(async ({ files: store, datasets }) => {
    const datasetIds = [...new Set(plans.map((p) => p.datasetId))].sort();
    const found = await datasets.existingIds(orgId, datasetIds);
    const missing = plans.find((plan) => !found.has(plan.datasetId));
    if (missing?.prefix === "") throw notFound("dataset", missing.datasetId);
    if (missing) throw invalidArgument(`${missing.prefix}dataset_id`, `dataset ${quoteValue(missing.datasetId)} not found`);
    for (const datasetId of datasetIds) await store.lockAssociation(datasetId);
    // One lookup per dataset for the whole batch: a lookup per request would flush the batch so far.
    for (const datasetId of datasetIds) await store.prefetchPaths(datasetId, plans.filter((p) => p.datasetId === datasetId).map((p) => p.path));
    const now = new Date();
    const files: FsNodeRow[] = [];
    const changes = noNodeChanges();
    const verdicts = await store.ingestableVerdicts(orgId, plans.map((plan) => plan.path));
    for (const plan of plans) files.push(await applyImport(store, changes, orgId, plan, actor, now, verdicts));
    await writeNodeChanges(store, changes);
    return files;
  });
}

/**
 * Plans one import into `changes`: a file already at the path gets a new version pointing at the
 * object (its earlier state kept as a snapshot); otherwise a new available file is created. Given
 * description, device id, tags and metadata replace the file's; omitted ones keep what an existing
 * file had.
 */
async function applyImport(
  store: FileRepository,
  changes: NodeChanges,
  orgId: string,
  plan: ImportPlan,
  actor: string,
  now: Date,
  verdicts: IngestableVerdicts,
): Promise<FsNodeRow> {
  const field = `${plan.prefix}relative_path`;
  const existing = await store.nodeAtPath(plan.datasetId, plan.path);
  if (existing?.fsType === "directory") throw conflict(`${field}: ${quoteValue(plan.path)} is a directory`);
  if (existing && isLink(existing)) throw conflict(`${field}: ${quoteValue(plan.path)} is a link`);
  const described = {
    ...(plan.description !== undefined ? { description: plan.description } : {}),
    ...(plan.deviceId !== undefined ? { deviceId: plan.deviceId } : {}),
    ...(plan.tags.length > 0 ? { tags: plan.tags } : {}),
    ...(plan.metadata !== undefined ? { metadata: plan.metadata } : {}),
  };
  const content = { uri: plan.uri, size: String(plan.size), storageType: "imported", uploadId: "NO_ID", modified: now, modifiedBy: actor };
  if (existing) {
    changes.versions.push({ ...existing });
    Object.assign(existing, described, content, { version: String(BigInt(existing.version) + 1n) });
    changes.updated.push(Object.assign(existing, ingestableAt(verdicts, existing)));
    return existing;
  }
  await checkAncestors(store, plan.datasetId, plan.path, field);
  const created: FsNodeRow = { ...newFileNode(orgId, plan.datasetId, plan.path, actor, now), ...described, ...content };
  const file: FsNodeRow = { ...created, ...ingestableAt(verdicts, created) };
  const { parentId, directories } = await store.planParents(file, actor, now);
  file.parentId = parentId;
  // Later imports of the batch see the new file at its path, as if it were written already.
  store.planNodes([file]);
  changes.inserted.push(...directories, file);
  return file;
}

/** Refuses a path below a file (`a.txt/b`), a 409 naming `field`: a file cannot hold children. */
export async function checkAncestors(store: FileRepository, associationId: string, path: string, field: string): Promise<void> {
  for (const dir of ancestorDirectories(path)) {
    const node = await store.nodeAtPath(associationId, dir);
    if (node?.fsType === "file") throw conflict(`${field}: ${quoteValue(dir)} is a file, so ${quoteValue(path)} cannot be created below it`);
  }
}

/** A new available file at `path` of a dataset, version 1, before its content (uri, size) is set. */
function newFileNode(orgId: string, datasetId: string, path: string, actor: string, now: Date): FsNodeRow {
  return newFsNode({
    nodeId: newId("fl"),
    orgId,
    associationId: datasetId,
    associationType: "dataset",
    fsType: "file",
    relativePath: path,
    status: "available",
    storageType: "imported",
    created: now,
    createdBy: actor,
  });
}

/** A link as requested: the dataset to add the file to, the file (and version) it points at, and an optional path. */
export interface FileLink {
  associationId: string;
  targetFileId: string;
  targetVersion?: bigint | undefined;
  relativePath?: string | undefined;
}

/**
 * link_file: adds a file to a dataset that points at a version of another file of the org: the
 * same object and size, and the same storage type, description, device, tags, metadata and
 * origination (a link reads as a copy made without copying bytes). It is a file of its own:
 * version 1, not yet ingested, and later changes to either file leave the other alone. The path
 * defaults to the target's path; a taken path is a 409. One transaction.
 */
export async function linkFile(uow: UnitOfWork<ImportRepositories>, orgId: string, link: FileLink, actor: string): Promise<FsNodeRow> {
  return uow.transaction(async ({ files, datasets }) => {
    const dataset = await datasets.find(orgId, link.associationId);
    if (!dataset) throw notFound("dataset", link.associationId);
    const target = await linkTarget(files, orgId, link);
    const path = checkUserPath(link.relativePath ?? target.relativePath, "relative_path");
    await files.lockAssociation(dataset.datasetId);
    if (await files.findAvailableAtPath(dataset.datasetId, path)) throw conflict(`relative_path: ${quoteValue(path)} already exists`);
    await checkAncestors(files, dataset.datasetId, path, "relative_path");
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
    file.parentId = await files.ensureParents(file, actor, now);
    await files.insertNodes([file]);
    return file;
  });
}

/** The version a link points at: the target's current one, or an earlier snapshot. */
async function linkTarget(files: FileRepository, orgId: string, link: FileLink): Promise<FsNodeRow> {
  if (link.targetFileId === "") throw invalidArgument("target_file_id", "is required");
  const file = await files.findNode(orgId, link.targetFileId);
  if (!file || file.fsType !== "file" || isLink(file)) throw notFound("file", link.targetFileId);
  if (link.targetVersion === undefined || String(link.targetVersion) === file.version) {
    if (file.status !== "available" || !file.uri) throw invalidArgument("target_file_id", `file ${quoteValue(link.targetFileId)} is still being uploaded`);
    return file;
  }
  const earlier = await files.version(file.nodeId, link.targetVersion);
  if (!earlier?.uri) throw notFound("file version", `${file.nodeId}@${link.targetVersion}`);
  return earlier;
}

/** Most file ids one file_device_ids call may name. */
export const MAX_DEVICE_ID_FILES = 1000;

/** file_device_ids: the sorted, distinct devices the org's files among `fileIds` came from (none without a readable org). */
export async function fileDeviceIds(uow: UnitOfWork<ImportRepositories>, orgId: string | undefined, fileIds: string[]): Promise<string[]> {
  if (!orgId || fileIds.length === 0) return [];
  return uow.repositories().files.deviceIds(orgId, fileIds);
}
