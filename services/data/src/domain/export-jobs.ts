import type { Logger, UnitOfWork } from "@hangar/shared";
import { zipArchive, type ArchiveEntry } from "../archive";
import type { ObjectStore } from "../object-store/object-store";
import type { ExportJobRecord } from "./exports";
import type { DataRepositories } from "./repositories";

/** What export jobs reach: the jobs and the files they archive. */
export type ExportRepositories = Pick<DataRepositories, "exports">;

/** How often a running export writes its progress (and so shows it is alive). */
export const PROGRESS_INTERVAL_MS = 1_000;
/**
 * An unfinished job silent for this long has lost its builder (its process stopped): status reads
 * then mark it failed. Far above the progress interval, so a busy database does not fail live jobs.
 */
export const STALE_AFTER_MS = 2 * 60_000;
/** The error a job interrupted by a stop of the service carries. */
export const INTERRUPTED_ERROR = "the export was interrupted (the service stopped while building it); start a new export";

/** How long a finished export's archive (and its status) is kept unless configured (`EXPORT_RETENTION_HOURS`). */
export const DEFAULT_EXPORT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Exports removed per batch by the sweep. */
const SWEEP_BATCH = 100;

/**
 * Removes the exports that finished more than `retentionMs` ago: their archives first, then the
 * jobs, so a crash in between leaves a job to retry rather than an archive nobody will delete.
 * After that get_export_status answers 404 for them. Returns how many jobs it removed.
 */
export async function sweepExpiredExports(deps: Pick<ExportDeps, "uow" | "objects">, retentionMs: number, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - retentionMs);
  let removed = 0;
  for (;;) {
    const { exports } = deps.uow.repositories();
    const jobs = await exports.finishedBefore(before, SWEEP_BATCH);
    if (jobs.length === 0) return removed;
    await deps.objects.deleteObjects(jobs.map((job) => job.objectKey));
    await exports.deleteJobs(jobs.map((job) => job.exportJobId));
    removed += jobs.length;
  }
}

/** What a background export needs. */
export interface ExportDeps {
  uow: UnitOfWork<ExportRepositories>;
  objects: ObjectStore;
  logger: Logger;
}

/**
 * Builds a job's archive in the background of the service process: the caller already has its job
 * id. Every failure ends up on the job (`failed` with the error); nothing is thrown to the caller.
 */
export function startExportJob(deps: ExportDeps, job: ExportJobRecord, entries: ArchiveEntry[]): void {
  runExportJob(deps, job, entries).catch((error: unknown) => {
    deps.logger.error({ err: error, exportJobId: job.exportJobId }, "export job could not record its outcome");
  });
}

async function runExportJob(deps: ExportDeps, job: ExportJobRecord, entries: ArchiveEntry[]): Promise<void> {
  const write = (changes: Partial<ExportJobRecord>) => deps.uow.repositories().exports.updateUnfinished(job.exportJobId, changes);
  let bytes = 0;
  await write({ status: "running", heartbeat: new Date() });
  const reporter = startProgressReporter(() => write({ bytesUploaded: String(bytes), heartbeat: new Date() }), deps.logger);
  try {
    const archive = zipArchive(entries, { open: (key) => deps.objects.getObject(key), progress: (n) => (bytes += n) });
    await deps.objects.putObject(job.objectKey, archive, "application/zip");
    await reporter.stop();
    await write({ status: "completed", bytesUploaded: String(bytes), heartbeat: new Date(), finished: new Date() });
  } catch (error) {
    await reporter.stop();
    deps.logger.warn({ err: error, exportJobId: job.exportJobId }, "export failed");
    await write({ status: "failed", error: errorMessage(error), bytesUploaded: String(bytes), heartbeat: new Date(), finished: new Date() });
  }
}

/** Runs `report` every interval, one at a time; `stop` waits for a report in flight. */
function startProgressReporter(report: () => Promise<void>, logger: Logger): { stop(): Promise<void> } {
  let inFlight: Promise<void> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    inFlight = report()
      .catch((error: unknown) => logger.warn({ err: error }, "export progress could not be written"))
      .finally(() => (busy = false));
  }, PROGRESS_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
