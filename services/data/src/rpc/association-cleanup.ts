import { startPeriodicTask, type Logger, type Orm, type PeriodicTask } from "@hangar/shared";
import { cleanupStep } from "../domain/association-cleanup";
import { s3Uri, type ObjectStore } from "../object-store/object-store";
import { AssociationDeletionStore } from "../store/association-deletion-store";

/** How the background cleanup after deleted datasets, devices and device types runs. */
export interface AssociationCleanupOptions {
  /** How often queued deletions are looked for (default 5 s); a deletion wakes the cleanup at once. */
  intervalMs?: number;
  /** Rows (files and directories, or upload transactions) removed per transaction (default 500). */
  batchSize?: number;
  /**
   * Batches per run (default 20); when a run ends with work left, the next starts at once. The
   * bound keeps a stop of the service from waiting on a deletion of millions of files.
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
  const task: PeriodicTask = startPeriodicTask({
    name: "deleted files cleanup",
    intervalMs: options.intervalMs ?? 5_000,
    logger: deps.logger,
    run: async () => {
      let steps = 0;
      while (steps < batchesPerRun && (await step())) steps += 1;
      if (steps === batchesPerRun) task.wake();
      return steps;
    },
  });
  task.wake();
  return task;
}
