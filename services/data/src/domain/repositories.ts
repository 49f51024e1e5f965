import type { NewEvent } from "@hangar/shared";
import type { AssociationRetirement, DatasetLookup, FileRepository, FileSearchRepository, TreeRepository, UploadRepository } from "./file-repositories";

/** The outbox: an event recorded here is published after the unit of work commits, never if it rolls back. */
export interface EventRepository {
  record(event: NewEvent): void;
}

/**
 * Every repository of the data service, as one unit of work hands them out (`store/repositories.ts`
 * binds them; `index.ts` builds the unit of work). Use cases take the part they need (a `Pick`).
 */
export interface DataRepositories {
  files: FileRepository;
  tree: TreeRepository;
  uploads: UploadRepository;
  fileSearch: FileSearchRepository;
  /** The dataset reads of the file operations; the dataset repository satisfies it. */
  datasets: DatasetLookup;
  events: EventRepository;
  /** The deletion record of the files' owners; the association deletion repository satisfies it. */
  associationDeletions: AssociationRetirement;
}
