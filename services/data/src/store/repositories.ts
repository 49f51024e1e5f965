import type { EntityManager } from "@hangar/shared";
import type { DataRepositories } from "../domain/repositories";
import { AssociationDeletionStore } from "./association-deletion-store";
import { DatasetStore } from "./dataset-store";
import { DeviceStore, DeviceTypeStore } from "./device-store";
import { EventStore } from "./event-store";
import { ExportStore } from "./export-store";
import { FileSearchStore } from "./file-search-store";
import { FileStore } from "./file-store";
import { RecordOwnerStore } from "./record-owner-store";
import { TreeStore } from "./tree-store";
import { UploadStore } from "./upload-store";

/**
 * The data service's repositories over one entity manager: what `ormUnitOfWork` binds for each
 * request or transaction (see the service's index.ts). Construction is cheap; nothing is read here.
 */
export function bindDataRepositories(em: EntityManager): DataRepositories {
  const files = new FileStore(em);
  return {
    datasets: new DatasetStore(em),
    devices: new DeviceStore(em),
    deviceTypes: new DeviceTypeStore(em),
    associationDeletions: new AssociationDeletionStore(em),
    exports: new ExportStore(em),
    events: new EventStore(em),
    files,
    tree: new TreeStore(files),
    uploads: new UploadStore(em),
    fileSearch: new FileSearchStore(em),
    owners: new RecordOwnerStore(em),
  };
}
