import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, invalidArgument, newId, notFound, readableOrg, type ServiceContext, quoteValue } from "@hangar/shared";
import type { DataService } from "@hangar/shared/proto/data";
import type { ArchiveEntry } from "../archive";
import { keyOfUri, type ObjectStore } from "../object-store/object-store";
import type { ExportedNode, ExportJobRecord } from "../domain/exports";
import { ExportStore } from "../store/export-store";
import { INTERRUPTED_ERROR, STALE_AFTER_MS, startExportJob } from "./export-jobs";
import { CREDENTIALS_TTL_SECONDS } from "./uploads";

type ExportHandlers = Pick<ServiceImpl<typeof DataService>, "exportFiles" | "getExportStatus">;

/** Most nodes one export may name (directories count once, however many files they hold). */
export const MAX_EXPORT_NODES = 1000;

/**
 * Exports: export_files answers a job id at once and builds a ZIP of the files in the background
 * (see export-jobs.ts); get_export_status reports the job and, once completed, a download URL
 * presigned at each call (valid one hour), so a URL never expires while it sits in the database.
 */
export function createExportHandlers(context: ServiceContext, objects: ObjectStore): ExportHandlers {
  const fork = () => new ExportStore(context.orm.em.fork());
  const deps = { orm: context.orm, objects, logger: context.runtime.logger };

  return {
    async exportFiles(req, ctx) {
      const caller = callerOf(ctx);
      // An org the caller may not read is no org: every node is then not found.
      const orgId = readableOrg(caller) ?? "";
      const store = fork();
      const entries = await exportEntries(store, orgId, req.nodeIds);
      const exportJobId = newId("ex");
      const now = new Date();
      const job: ExportJobRecord = {
        exportJobId,
        orgId,
        status: "pending",
        nodeIds: req.nodeIds,
        objectKey: `${orgId}/exports/${exportJobId}/export.zip`,
        fileCount: entries.length,
        totalBytes: String(entries.reduce((sum, e) => sum + BigInt(e.size), 0n)),
        bytesUploaded: "0",
        error: null,
        created: now,
        createdBy: caller.subject,
        heartbeat: now,
        finished: null,
      };
      store.add(job);
      await store.em.flush();
      startExportJob(deps, job, entries);
      return { exportJobId };
    },

    async getExportStatus(req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      const job = orgId ? await currentJob(fork(), orgId, req.exportJobId) : null;
      if (!job) throw notFound("export job", req.exportJobId);
      const downloadUrl =
        job.status === "completed"
          ? await objects.presignGet(job.objectKey, { expiresInSeconds: CREDENTIALS_TTL_SECONDS, contentDisposition: `attachment; filename="${job.exportJobId}.zip"` })
          : undefined;
      return {
        status: job.status,
        ...(downloadUrl ? { downloadUrl } : {}),
        ...(job.error !== null ? { error: job.error } : {}),
        bytesUploaded: BigInt(job.bytesUploaded),
        totalBytes: BigInt(job.totalBytes),
      };
    },
  };
}

/**
 * A job as it stands. A job whose builder has been silent too long was cut off by a stop of its
 * process: it is recorded failed here (the check runs on every read, so no replica has to sweep at
 * start, and replicas cannot fail each other's live jobs).
 */
async function currentJob(store: ExportStore, orgId: string, exportJobId: string): Promise<ExportJobRecord | null> {
  const job = await store.find(orgId, exportJobId);
  if (!job || job.status === "completed" || job.status === "failed") return job;
  const before = new Date(Date.now() - STALE_AFTER_MS);
  if (job.heartbeat >= before) return job;
  await store.failSilentSince(exportJobId, before, INTERRUPTED_ERROR);
  return store.em.refresh(job);
}

/**
 * The archive's entries for the requested nodes: a file stands for itself, a directory for every
 * file below it; a file named twice is archived once. Names are the files' relative paths; when
 * the files come from more than one dataset, each name starts with its dataset id, so that equal
 * paths of different datasets cannot collide. Entries are sorted by name.
 */
async function exportEntries(store: ExportStore, orgId: string, nodeIds: string[]): Promise<ArchiveEntry[]> {
  if (nodeIds.length === 0) throw invalidArgument("node_ids", "must name at least one file or directory");
  if (nodeIds.length > MAX_EXPORT_NODES) throw invalidArgument("node_ids", `must name at most ${MAX_EXPORT_NODES} files or directories`);
  const found = orgId === "" ? [] : await store.nodes(orgId, nodeIds);
  const byId = new Map(found.map((node) => [node.nodeId, node]));
  const files = new Map<string, ExportedNode>();
  for (const [i, id] of nodeIds.entries()) {
    const node = byId.get(id);
    if (!node) throw invalidArgument(`node_ids[${i}]`, `file or directory ${quoteValue(id)} not found`);
    const below = node.fsType === "directory" ? await store.filesBelow(node) : [node];
    for (const file of below) files.set(file.nodeId, file);
  }
  const datasets = new Set([...files.values()].map((file) => file.associationId));
  const name = (file: ExportedNode) => (datasets.size > 1 ? `${file.associationId}/${file.relativePath}` : file.relativePath);
  return [...files.values()]
    .map((file) => ({ name: name(file), key: keyOfUri(file.uri!), size: Number(file.size), modified: file.modified }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
