import { startPeriodicTask, type Logger, type Orm, type PeriodicTask } from "@hangar/shared";
import { cleanupStep } from "../domain/association-cleanup";
import { s3Uri, type ObjectStore } from "../object-store/object-store";
import { AssociationDeletionStore } from "../store/association-deletion-store";

/** How the background cleanup after deleted datasets, devices and device types runs. */
export interface AssociationCleanupOptions {
  /**
   * The pause between runs (default 1 s); a deletion wakes the cleanup at once. An idle run is one
   * indexed query on an empty queue.
   */
  intervalMs?: number;
  /** Rows (files and directories, or upload transactions) removed per transaction (default 500). */
  batchSize?: number;
  /**
   * Batches per run (default 20, so about 10,000 files a second at the defaults). The bound keeps
   * a stop of the service from waiting on a deletion of millions of files, and leaves the
   * database to other work between runs.
   */
  batchesPerRun?: number;
}

/**
 * Starts the cleanup that removes what deleted owners left behind (see domain/association-cleanup),
 * one batch per transaction. It runs once at start, so deletions queued before a restart (or a
 * crash) are finished; several replicas share the queue (each owner is claimed with SKIP LOCKED).
 */
export function startAssociationCleanup(deps: { orm: Orm; objects: ObjectStore; logger: Logger }, options: AssociationCleanupOptions = {}): PeriodicTask {
  const batchSize = options.batchSize ?? 500;
  const batchesPerRun = options.batchesPerRun ?? 20;
  const objects = { deleteObjects: (keys: string[]) => deps.objects.deleteObjects(keys), uriOf: (key: string) => s3Uri(deps.objects.location.bucket, key) };
  const step = () => deps.orm.em.fork().transactional((em) => cleanupStep(new AssociationDeletionStore(em), objects, batchSize));
  const task = startPeriodicTask({
    name: "deleted files cleanup",
    intervalMs: options.intervalMs ?? 1_000,
    logger: deps.logger,
    run: async () => {
      let steps = 0;
      while (steps < batchesPerRun && (await step())) steps += 1;
      return steps;
    },
  });
  task.wake();
  return task;
}
