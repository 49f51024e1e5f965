import { lazyRepositories, type EntityManager } from "@hangar/shared";
import type { DataRepositories } from "../domain/repositories";
import { AssociationDeletionStore } from "./association-deletion-store";
import { CollectionStore } from "./collection-store";
import { CommentStore } from "./comment-store";
import { DatasetStore } from "./dataset-store";
import { DatasetSummaryStore } from "./dataset-summary-store";
import { TagStore } from "./tag-store";
import { DeviceStore, DeviceTypeStore } from "./device-store";
import { EventStore } from "./event-store";
import { ExportStore } from "./export-store";
import { FileSearchStore } from "./file-search-store";
import { FileStore } from "./file-store";
import { TimelineStore } from "./timeline-store";
import { TopicStore } from "./topic-store";
import { TopicReadStore } from "./topic-read-store";
import { EventTargetStore, RobotEventStore } from "./robot-event-store";
import { SessionStore } from "./session-store";
import { RecordOwnerStore } from "./record-owner-store";
import { TreeStore } from "./tree-store";
import { UploadStore } from "./upload-store";
import { QueryResultsStore } from "./query-results-store";
import { SavedQueryStore } from "./saved-query-store";
import { MetricStore } from "./metric-store";

/**
 * The data service's repositories over one entity manager: what `ormUnitOfWork` binds for each
 * request or transaction (see the service's index.ts). Each store is made when first used; nothing
 * is read here.
 */
export const bindDataRepositories: (em: EntityManager) => DataRepositories = lazyRepositories<DataRepositories>({
  datasets: (em) => new DatasetStore(em),
  devices: (em) => new DeviceStore(em),
  deviceTypes: (em) => new DeviceTypeStore(em),
  associationDeletions: (em) => new AssociationDeletionStore(em),
  exports: (em) => new ExportStore(em),
  events: (em) => new EventStore(em),
  files: (em) => new FileStore(em),
  tree: (_em, repositories) => new TreeStore(repositories.files as FileStore),
  uploads: (em) => new UploadStore(em),
  fileSearch: (em) => new FileSearchStore(em),
  comments: (em) => new CommentStore(em),
  // --- topics ---
  topics: (em) => new TopicStore(em),
  timelines: (em) => new TimelineStore(em),
  topicReads: (em) => new TopicReadStore(em),
  sessions: (em) => new SessionStore(em),
  robotEvents: (em) => new RobotEventStore(em),
  eventTargets: (em) => new EventTargetStore(em),
  owners: (em) => new RecordOwnerStore(em),
  // --- collections ---
  collections: (em) => new CollectionStore(em),
  // --- robotdata ---
  datasetSummaries: (em) => new DatasetSummaryStore(em),
  // --- search ---
  savedQueries: (em) => new SavedQueryStore(em),
  queryResults: (em) => new QueryResultsStore(em),
  // --- metrics ---
  metrics: (em) => new MetricStore(em),
  tags: (em) => new TagStore(em),
});
