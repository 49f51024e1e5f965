import { fromBinary, toJson, type JsonObject } from "@bufbuild/protobuf";
import { DatasetSchema } from "@hangar/shared/proto/data";
import { TOPICS, type ConsumerDefinition, type EventMessage } from "@hangar/shared";
import { DatasetChange, DatasetChangedSchema, FileChangedSchema, UploadCompletedSchema } from "@hangar/shared/proto/events";
import { fireEvent, type FiringDeps } from "../domain/fire-triggers";
import type { UploadedFileVersion } from "../domain/ingestable-files";
import type { PlatformEvent } from "../domain/platform-events";
import { eventNamespace, type EntityReader } from "../domain/trigger-dry-run";
import type { GateReaders } from "../domain/trigger-gates";

/** The consumer's name: its Kafka group and the key of its processed-event records. */
export const TRIGGER_DISPATCH_CONSUMER = "compute.trigger-dispatch";

/** What firing v2 triggers on platform events runs on. */
export interface TriggerDispatchDeps extends FiringDeps {
  entities: EntityReader;
  gatesFor: (orgId: string) => GateReaders;
  /** Runs before an upload into a dataset fires anything (the org's default ingestion rules are given then). */
  beforeUpload?: (orgId: string, uploader: string) => Promise<void>;
  /** Marks the files of an upload into a dataset that an auto-ingesting rule matches (after its triggers fired). */
  markIngestable?: (orgId: string, files: readonly UploadedFileVersion[]) => Promise<void>;
}

/**
 * Fires the 0.62 model's event triggers from the platform's events: an upload into a dataset
 * (`dataset.upload_completed`, and `file.uploaded` per file), a dataset created or changed
 * (`dataset.created`, `dataset.metadata_updated`), a file edited or marked ingested
 * (`file.metadata_updated`, `file.ingested`). A redelivered message claims no slot twice.
 */
export function triggerDispatchConsumer(deps: TriggerDispatchDeps): ConsumerDefinition {
  return {
    name: TRIGGER_DISPATCH_CONSUMER,
    topics: [TOPICS.uploadCompleted, TOPICS.datasetChanged, TOPICS.fileChanged],
    // An event that is no platform event (a deletion, an upload into something else): no transaction.
    accepts: (message) => platformEventsOf(message).length > 0,
    async handler(_em, message) {
      const upload = message.topic === TOPICS.uploadCompleted ? fromBinary(UploadCompletedSchema, message.payload) : undefined;
      const intoDataset = upload?.associationType === "dataset";
      if (upload && intoDataset) await deps.beforeUpload?.(upload.orgId, upload.completedBy);
      for (const event of platformEventsOf(message)) {
        await fireEvent(deps, event, await eventNamespace(event, deps.entities), deps.gatesFor(event.orgId));
      }
      // After the firing: a redelivery after a failed mark claims no dispatch twice.
      if (upload && intoDataset) await deps.markIngestable?.(upload.orgId, upload.files);
    },
  };
}

/** The platform events a message is; ids derive from the message's, so a redelivery repeats them exactly. */
export function platformEventsOf(message: EventMessage): PlatformEvent[] {
  const at = new Date();
  switch (message.topic) {
    case TOPICS.uploadCompleted: {
      const event = fromBinary(UploadCompletedSchema, message.payload);
      if (event.associationType !== "dataset") return [];
      const base = { orgId: event.orgId, time: at };
      const dataset = event.associationId;
      return [
        { ...base, id: message.eventId, type: "dataset.upload_completed", data: { dataset_id: dataset, transaction_id: event.transactionId } },
        ...event.files.map((f): PlatformEvent => ({
          ...base,
          id: `${message.eventId}:${f.fileId}`,
          type: "file.uploaded",
          data: { dataset_id: dataset, file_id: f.fileId, file_version: Number(f.version), transaction_id: event.transactionId },
        })),
      ];
    }
    case TOPICS.datasetChanged: {
      const event = fromBinary(DatasetChangedSchema, message.payload);
      const type = event.change === DatasetChange.CREATED ? "dataset.created" : event.change === DatasetChange.UPDATED ? "dataset.metadata_updated" : undefined;
      if (!type) return [];
      const dataset = event.dataset ? (toJson(DatasetSchema, event.dataset, { useProtoFieldName: true }) as JsonObject) : undefined;
      const data = { dataset_id: event.datasetId, ...(type === "dataset.metadata_updated" ? { changeset: {} } : {}) };
      return [{ id: message.eventId, type, time: at, orgId: event.orgId, data, ...(dataset ? { dataset } : {}) }];
    }
    case TOPICS.fileChanged: {
      const event = fromBinary(FileChangedSchema, message.payload);
      if (event.associationType !== "dataset") return [];
      const data = { dataset_id: event.associationId, file_id: event.fileId };
      return [
        ...(event.metadataUpdated ? [{ id: `${message.eventId}:metadata`, type: "file.metadata_updated" as const, time: at, orgId: event.orgId, data: { ...data, changeset: {} } }] : []),
        ...(event.ingested ? [{ id: `${message.eventId}:ingested`, type: "file.ingested" as const, time: at, orgId: event.orgId, data }] : []),
      ];
    }
    default:
      return [];
  }
}
