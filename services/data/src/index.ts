import { ormUnitOfWork, startPeriodicTask, type Orm, type PeriodicTask, type ServiceDefinition, type UnitOfWork } from "@hangar/shared";
import { DataService } from "@hangar/shared/proto/data";
import { startAssociationCleanup, type AssociationCleanupOptions } from "./domain/association-cleanup";
import { resolveAssociation } from "./domain/associations";
import { DEFAULT_EXPORT_RETENTION_MS, sweepExpiredExports } from "./domain/export-jobs";
import type { DataRepositories } from "./domain/repositories";
import { s3Uri, type ObjectStore } from "./object-store/object-store";
import { createCollectionHandlers } from "./rpc/collection-handlers";
import { createCommentHandlers } from "./rpc/comment-handlers";
import { computePorts } from "./rpc/compute-entities";
import { computeDeletionConsumer } from "./events/compute-deletion-consumer";
import { createDatasetHandlers } from "./rpc/data-service";
import { createDeviceHandlers } from "./rpc/device-handlers";
import { createDeviceTypeHandlers } from "./rpc/device-type-handlers";
import { createDirectoryHandlers } from "./rpc/directory-handlers";
import { createExportHandlers } from "./rpc/export-handlers";
import type { FileHandlerDeps } from "./rpc/file-deps";
import { createFileHandlers } from "./rpc/file-handlers";
import { createFileQueryHandlers } from "./rpc/file-query-handlers";
import { createQueryHandlers } from "./rpc/query-handlers";
import { ruleBasedProvider } from "./domain/prompt-to-query";
import { createImportHandlers } from "./rpc/import-handlers";
import { createMoveHandlers } from "./rpc/move-handlers";
import { createTopicHandlers } from "./rpc/topic-handlers";
import { createFileTopicHandlers } from "./rpc/file-topic-handlers";
import { createTopicReadHandlers } from "./rpc/topic-read-handlers";
import { createDatasetSummaryHandlers } from "./rpc/dataset-summary-handlers";
import { createTagHandlers } from "./rpc/tag-handlers";
import { SESSION_BOUNDS_HOOKS } from "./domain/session-bounds";
import { createUploadHandlers } from "./rpc/upload-handlers";
import { createRobotEventHandlers } from "./rpc/robot-event-handlers";
import { createSessionHandlers } from "./rpc/session-handlers";
import { createMetricHandlers } from "./rpc/metric-handlers";
import { startSessionCompletion, type SessionCompletionOptions } from "./domain/session-completion";
import { sessionEntities } from "./store/session-entities";
import { deviceEntities } from "./store/device-entities";
import { dataEntities } from "./store/entities";
import { exportEntities } from "./store/export-entities";
import { fileEntities } from "./store/file-entities";
import { dataMigrations } from "./store/migrations";
import { bindDataRepositories } from "./store/repositories";
import { commentEntities } from "./store/comment-store";
import { collectionEntities } from "./store/collection-entities";

export type { AccessMode, ObjectStore, ScopedCredentials, StoreLocation } from "./object-store/object-store";
export { openObjectStore, type ObjectStoreConfig } from "./object-store/open-object-store";
export type { AssociationCleanupOptions } from "./domain/association-cleanup";
export type { SessionCompletionOptions } from "./domain/session-completion";

/** What the data service needs besides its database. */
export interface DataServiceOptions {
  /** Where file bytes live; its owner (the hosting process) closes it. */
  objectStore: ObjectStore;
  /** How long finished exports are kept (default 24 h; `EXPORT_RETENTION_HOURS` sets it). */
  exportRetentionMs?: number;
  /** How often expired exports are swept (default 10 minutes). */
  exportSweepIntervalMs?: number;
  /** The background removal of what deleted datasets, devices and device types leave (defaults in its type). */
  cleanup?: AssociationCleanupOptions;
  /** The completion of sessions by inactivity (defaults in its type). */
  sessionCompletion?: SessionCompletionOptions;
}

/** The data service: datasets, files, directories, uploads, devices and device types, sessions and events (topics follow). */
export function dataService(options: DataServiceOptions): ServiceDefinition {
  const retentionMs = options.exportRetentionMs ?? DEFAULT_EXPORT_RETENTION_MS;
  let exportSweep: PeriodicTask | undefined;
  let cleanup: PeriodicTask | undefined;
  let sessionCompletion: PeriodicTask | undefined;
  // Deletions commit in the RPCs, which start after onStart: by then the cleanup exists.
  const deleted = () => cleanup?.wake();
  // The one unit of work of the service, over the database it is given at start (onStart, then routes).
  let uow: UnitOfWork<DataRepositories> | undefined;
  const unitOfWork = (orm: Orm) => (uow ??= ormUnitOfWork(orm, bindDataRepositories));
  return {
    name: "data",
    entities: [...dataEntities, ...fileEntities, ...exportEntities, ...deviceEntities, ...commentEntities, ...sessionEntities, ...collectionEntities],
    migrations: dataMigrations,
    routes: (router, context) => {
      const uow = unitOfWork(context.orm);
      const compute = computePorts(context.runtime);
      const files: FileHandlerDeps = {
        uow,
        objects: options.objectStore,
        resolveAssociation: (caller, ref, typeField) => resolveAssociation(uow.repositories(), caller, ref, typeField),
        eventsWritten: () => context.eventsWritten(),
        builtinInvocations: compute.builtinInvocations,
      };
      return router.service(DataService, {
        ...createDatasetHandlers({ uow, eventsWritten: context.eventsWritten, deleted }),
        ...createUploadHandlers(files),
        ...createFileHandlers(files),
        ...createFileQueryHandlers(uow),
        ...createDirectoryHandlers(files),
        ...createMoveHandlers(files),
        ...createImportHandlers(files),
        ...createExportHandlers({ uow, objects: options.objectStore, logger: context.runtime.logger }),
        ...createDeviceHandlers({ uow, runtime: context.runtime, deleted }),
        ...createDeviceTypeHandlers({ uow, deleted }),
        ...createCommentHandlers({ uow, compute: compute.entities, eventsWritten: context.eventsWritten }),
        // --- topics ---
        ...createTopicHandlers(uow),
        ...createFileTopicHandlers({ uow, hooks: SESSION_BOUNDS_HOOKS }),
        ...createTopicReadHandlers({ uow, hooks: SESSION_BOUNDS_HOOKS }),
        ...createSessionHandlers({ uow }),
        ...createRobotEventHandlers({ uow }),
        // --- collections ---
        ...createCollectionHandlers(uow),
        // --- robotdata ---
        ...createDatasetSummaryHandlers(uow),
        // --- search ---
        ...createQueryHandlers({ uow, models: ruleBasedProvider }),
        // --- metrics ---
        ...createMetricHandlers({ uow }),
        ...createTagHandlers(uow),
      });
    },
    consumers: () => [computeDeletionConsumer(bindDataRepositories)],
    async onStart({ orm, runtime }) {
      exportSweep = startPeriodicTask({
        name: "export sweep",
        intervalMs: options.exportSweepIntervalMs ?? 10 * 60_000,
        run: () => sweepExpiredExports({ uow: unitOfWork(orm), objects: options.objectStore }, retentionMs),
        logger: runtime.logger,
      });
      const objects = options.objectStore;
      const deleter = { deleteObjects: (keys: string[]) => objects.deleteObjects(keys), uriOf: (key: string) => s3Uri(objects.location.bucket, key) };
      cleanup = startAssociationCleanup({ uow: unitOfWork(orm), objects: deleter, logger: runtime.logger }, options.cleanup);
      sessionCompletion = startSessionCompletion({ uow: unitOfWork(orm), logger: runtime.logger }, options.sessionCompletion);
    },
    async onStop() {
      await exportSweep?.stop();
      await cleanup?.stop();
      await sessionCompletion?.stop();
    },
  };
}
