import type { EntityManager } from "@hangar/shared";
import type { DataRepositories } from "../domain/repositories";
import { AssociationDeletionStore } from "./association-deletion-store";
import { DatasetStore } from "./dataset-store";
import { EventStore } from "./event-store";
import { FileSearchStore } from "./file-search-store";
import { FileStore } from "./file-store";
import { TreeStore } from "./tree-store";
import { UploadStore } from "./upload-store";

/** The data service's repositories over one entity manager: what its unit of work hands to use cases. */
export function bindDataRepositories(em: EntityManager): DataRepositories {
  const files = new FileStore(em);
  return {
    files,
    tree: new TreeStore(files),
    uploads: new UploadStore(em),
    fileSearch: new FileSearchStore(em),
    datasets: new DatasetStore(em),
    events: new EventStore(em),
    associationDeletions: new AssociationDeletionStore(em),
  };
}
