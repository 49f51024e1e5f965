import { invalidArgument, newId, notFound, quoteValue, type UnitOfWork } from "@hangar/shared";
import type { ArchiveEntry } from "../archive";
import { keyOfUri } from "../object-store/object-store";
import type { Actor } from "./actor";
import { INTERRUPTED_ERROR, STALE_AFTER_MS, startExportJob, type ExportDeps, type ExportRepositories } from "./export-jobs";
import type { ExportedNode, ExportJobRecord } from "./exports";

/**
 * Starts an export of files and directories of the actor's org: the job is recorded and its ZIP
 * built in the background (see export-jobs.ts), so the caller has the job at once. A node that is
 * not an available file or directory of the org is a 400 naming its index, and nothing is recorded.
 */
export async function exportFiles(deps: ExportDeps, actor: Actor, nodeIds: string[]): Promise<ExportJobRecord> {
  // An org the caller may not read is no org: every node is then not found.
  const orgId = actor.orgId ?? "";
  const entries = await exportEntries(deps.uow.repositories(), orgId, nodeIds);
  const exportJobId = newId("ex");
  const now = new Date();
  const job: ExportJobRecord = {
    exportJobId,
    orgId,
    status: "pending",
    nodeIds,
    objectKey: `${orgId}/exports/${exportJobId}/export.zip`,
    fileCount: entries.length,
    totalBytes: String(entries.reduce((sum, e) => sum + BigInt(e.size), 0n)),
    bytesUploaded: "0",
    error: null,
    created: now,
    createdBy: actor.subject,
    heartbeat: now,
    finished: null,
  };
  await deps.uow.transaction(async (r) => r.exports.add(job));
  startExportJob(deps, job, entries);
  return job;
}

/**
 * An export job of the actor's org as it stands; a 404 otherwise. A job whose builder has been
 * silent too long was cut off by a stop of its process: it is recorded failed here (the check runs
 * on every read, so no replica has to sweep at start, and replicas cannot fail each other's live jobs).
 */
export async function exportStatus(uow: UnitOfWork<ExportRepositories>, actor: Actor, exportJobId: string): Promise<ExportJobRecord> {
  const { exports } = uow.repositories();
  const job = actor.orgId ? await exports.find(actor.orgId, exportJobId) : null;
  if (!job) throw notFound("export job", exportJobId);
  if (job.status === "completed" || job.status === "failed") return job;
  const before = new Date(Date.now() - STALE_AFTER_MS);
  if (job.heartbeat >= before) return job;
  await exports.failSilentSince(exportJobId, before, INTERRUPTED_ERROR);
  return (await exports.find(job.orgId, exportJobId)) ?? job;
}

/**
 * The archive's entries for the requested nodes: a file stands for itself, a directory for every
 * file below it; a file named twice is archived once. Names are the files' relative paths; when
 * the files come from more than one dataset, each name starts with its dataset id, so that equal
 * paths of different datasets cannot collide. Entries are sorted by name. How many nodes one
 * export may name is the request's limit (proto `max_items`).
 */
async function exportEntries(r: ExportRepositories, orgId: string, nodeIds: string[]): Promise<ArchiveEntry[]> {
  if (nodeIds.length === 0) throw invalidArgument("node_ids", "must name at least one file or directory");
  const found = orgId === "" ? [] : await r.exports.nodes(orgId, nodeIds);
  const byId = new Map(found.map((node) => [node.nodeId, node]));
  const files = new Map<string, ExportedNode>();
  for (const [i, id] of nodeIds.entries()) {
    const node = byId.get(id);
    if (!node) throw invalidArgument(`node_ids[${i}]`, `file or directory ${quoteValue(id)} not found`);
    const below = node.fsType === "directory" ? await r.exports.filesBelow(node) : [node];
    for (const file of below) files.set(file.nodeId, file);
  }
  const datasets = new Set([...files.values()].map((file) => file.associationId));
  const name = (file: ExportedNode) => (datasets.size > 1 ? `${file.associationId}/${file.relativePath}` : file.relativePath);
  return [...files.values()]
    .map((file) => ({ name: name(file), key: keyOfUri(file.uri!), size: Number(file.size), modified: file.modified }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
