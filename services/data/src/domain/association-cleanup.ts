import { startPeriodicTask, type Logger, type PeriodicTask, type UnitOfWork } from "@hangar/shared";

/** A batch of an owner's files and directories: their ids and every `s3://` URI they or their earlier versions point at. */
export interface NodeBatch {
  ids: string[];
  uris: string[];
}

/** A batch of an owner's upload transactions: their ids and the object keys of their manifests. */
export interface TransactionBatch {
  ids: string[];
  objectKeys: string[];
}

/**
 * The queue of deleted owners still to clean up, as one transaction sees it: each method is one
 * or two queries over at most one batch of rows.
 */
export interface DeletionQueue {
  /** The oldest queued owner nobody else is cleaning, held until the transaction ends; null when none is left. */
  claim(): Promise<string | null>;
  nodeBatch(associationId: string, limit: number): Promise<NodeBatch>;
  deleteNodes(ids: string[]): Promise<void>;
  transactionBatch(associationId: string, limit: number): Promise<TransactionBatch>;
  deleteTransactions(ids: string[]): Promise<void>;
  /** The keys of `uris` that no live file or earlier version points at (after this transaction's deletes). */
  unreferencedKeys(uris: string[]): Promise<string[]>;
  /** Removes the owner from the queue: nothing of it is left. */
  finish(associationId: string): Promise<void>;
}

/** What owns the files being deleted (a dataset, device or device type), and who deleted it. */
export interface DeletedAssociation {
  associationId: string;
  associationType: string;
  orgId: string;
  requestedBy: string;
}

/** The deletions of what owns files: recorded by the deleting transaction, worked through by the cleanup. */
export interface AssociationDeletionRepository extends DeletionQueue {
  /**
   * In the deleting transaction: aborts the association's open uploads and records the deletion,
   * which hides all its files from every read on commit and queues them for the cleanup. Waits for
   * writes holding the association's path lock; recording twice is harmless.
   */
  retire(association: DeletedAssociation): Promise<void>;
}

/** Where the bytes are: deleting absent keys is not an error, which makes a repeated step harmless. */
export interface ObjectDeleter {
  deleteObjects(keys: string[]): Promise<void>;
  /** The `s3://` URI files carry for an object key, to check manifest keys against files. */
  uriOf(key: string): string;
}

/** What the cleanup reaches: the queue of deletions and the rows it removes. */
export type CleanupRepositories = { associationDeletions: AssociationDeletionRepository };

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
 * Starts the cleanup that removes what deleted owners left behind, one batch per transaction
 * (see cleanupStep). It runs once at start, so deletions queued before a restart (or a crash) are
 * finished; several replicas share the queue (each owner is claimed with SKIP LOCKED).
 */
export function startAssociationCleanup(
  deps: { uow: UnitOfWork<CleanupRepositories>; objects: ObjectDeleter; logger: Logger },
  options: AssociationCleanupOptions = {},
): PeriodicTask {
  const batchSize = options.batchSize ?? 500;
  const batchesPerRun = options.batchesPerRun ?? 20;
  const task = startPeriodicTask({
    name: "deleted files cleanup",
    intervalMs: options.intervalMs ?? 1_000,
    logger: deps.logger,
    run: async () => {
      let steps = 0;
      while (steps < batchesPerRun && (await cleanupStep(deps.uow, deps.objects, batchSize))) steps += 1;
      return steps;
    },
  });
  task.wake();
  return task;
}

/**
 * One step of cleaning up after deleted owners, in one database transaction: the rows of one
 * batch (files and directories first, then upload transactions) are deleted, then the bytes that
 * nothing else needs (links and imports share objects), and the transaction commits last. A
 * crash anywhere leaves the rows, so the next step redoes the batch and finds the bytes already
 * gone; an owner leaves the queue only once nothing of it is left. Returns false when no owner is
 * waiting.
 */
export function cleanupStep(uow: UnitOfWork<CleanupRepositories>, objects: ObjectDeleter, batchSize: number): Promise<boolean> {
  return uow.transaction(async ({ associationDeletions: queue }) => {
    const associationId = await queue.claim();
    if (associationId === null) return false;
    const nodes = await queue.nodeBatch(associationId, batchSize);
    if (nodes.ids.length > 0) {
      await queue.deleteNodes(nodes.ids);
      await objects.deleteObjects(await queue.unreferencedKeys(nodes.uris));
      return true;
    }
    const transactions = await queue.transactionBatch(associationId, batchSize);
    if (transactions.ids.length > 0) {
      await queue.deleteTransactions(transactions.ids);
      await objects.deleteObjects(await queue.unreferencedKeys(transactions.objectKeys.map((key) => objects.uriOf(key))));
      return true;
    }
    await queue.finish(associationId);
    return true;
  });
}
