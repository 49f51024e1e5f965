import type { NewEvent } from "@hangar/shared";
import type { AssociationDeletionRepository } from "./association-cleanup";
import type { CollectionRepository } from "./collections";
import type { CommentRepository } from "./comments";
import type { DatasetRepository } from "./datasets";
import type { DatasetSummaryRepository } from "./dataset-summaries";
import type { TagRepository } from "./tags";
import type { DeviceRepository, DeviceTypeRepository } from "./devices";
import type { ExportRepository } from "./exports";
import type { FileRepository, FileSearchRepository, TreeRepository, UploadRepository } from "./file-repositories";
import type { TimelineRepository } from "./file-topics";
import type { TopicRepository } from "./topics";
import type { TopicReadRepository } from "./topic-reads";
import type { EventTargetRepository, RobotEventRepository } from "./robot-events";
import type { SessionRepository } from "./sessions";
import type { QueryResultsRepository, SavedQueryRepository } from "./saved-queries";
import type { MetricRepository } from "./metrics";
/** The outbox: an event recorded here is published after the unit of work commits, never if it rolls back. */
export interface EventRepository {
  record(event: NewEvent): void;
}

/** Records a caller may address by id alone (`RecordOwnerRepository`). */
export type OwnedRecord = "dataset" | "file" | "upload" | "collection";

/** Whose a record is: the by-id calls of a caller in several orgs resolve their org from it (`recordOrg`). */
export interface RecordOwnerRepository {
  /** The org of the record, or undefined when there is none with that id. */
  orgOf(kind: OwnedRecord, id: string): Promise<string | undefined>;
}

/**
 * Every repository of the data service, as one unit of work binds them to one entity manager
 * (store/repositories.ts). Use cases name the members they need with `Pick`, so their unit specs
 * fake only those.
 */
export interface DataRepositories {
  datasets: DatasetRepository;
  devices: DeviceRepository;
  deviceTypes: DeviceTypeRepository;
  associationDeletions: AssociationDeletionRepository;
  exports: ExportRepository;
  events: EventRepository;
  files: FileRepository;
  tree: TreeRepository;
  uploads: UploadRepository;
  fileSearch: FileSearchRepository;
  comments: CommentRepository;
  // --- topics ---
  topics: TopicRepository;
  timelines: TimelineRepository;
  topicReads: TopicReadRepository;
  // --- sessions and events ---
  sessions: SessionRepository;
  /** The API's events (`events` above is the outbox). */
  robotEvents: RobotEventRepository;
  eventTargets: EventTargetRepository;
  owners: RecordOwnerRepository;
  // --- collections ---
  collections: CollectionRepository;
  // --- robotdata ---
  datasetSummaries: DatasetSummaryRepository;
  // --- search ---
  savedQueries: SavedQueryRepository;
  queryResults: QueryResultsRepository;
  // --- metrics ---
  metrics: MetricRepository;
  tags: TagRepository;
}
