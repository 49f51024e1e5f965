import type { EntityManager } from "@hangar/shared";
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
    comments: new CommentStore(em),
    // --- topics ---
    topics: new TopicStore(em),
    timelines: new TimelineStore(em),
    topicReads: new TopicReadStore(em),
    sessions: new SessionStore(em),
    robotEvents: new RobotEventStore(em),
    eventTargets: new EventTargetStore(em),
    owners: new RecordOwnerStore(em),
    // --- collections ---
    collections: new CollectionStore(em),
    // --- robotdata ---
    datasetSummaries: new DatasetSummaryStore(em),
    // --- search ---
    savedQueries: new SavedQueryStore(em),
    queryResults: new QueryResultsStore(em),
    // --- metrics ---
    metrics: new MetricStore(em),
    tags: new TagStore(em),
  };
}
