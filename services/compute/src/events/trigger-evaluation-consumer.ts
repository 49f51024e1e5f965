import { fromBinary } from "@bufbuild/protobuf";
import { TOPICS, type ConsumerDefinition, type EventMessage, type Logger, type UnitOfWork, type UserDirectory } from "@hangar/shared";
import { DatasetChange, DatasetChangedSchema, FileChangedSchema, UploadCompletedSchema } from "@hangar/shared/proto/events";
import { evaluateOccasion } from "../domain/evaluate-triggers";
import type { TriggerRepositories } from "../domain/repositories";
import {
  DATASET_METADATA_UPDATE_CAUSE,
  FILE_INGEST_CAUSE,
  FILE_METADATA_UPDATE_CAUSE,
  FILE_UPLOAD_CAUSE,
  type EvaluationOccasion,
  type TriggerDataQueries,
} from "../domain/trigger-evaluation";

/** The consumer's name: its Kafka group and the key of its processed-event records. */
export const TRIGGER_EVALUATION_CONSUMER = "compute.trigger-evaluation";

/** What trigger evaluation runs on: the repositories, the data service's answers per org, the users runs-as checks are about. */
export interface TriggerEvaluationDeps {
  uow: UnitOfWork<TriggerRepositories>;
  dataFor: (orgId: string) => TriggerDataQueries;
  users: UserDirectory;
  logger: Logger;
}

/**
 * Evaluates the org's triggers when something happens to a dataset: an upload into it completes
 * (triggers reacting to `file_upload`; uploads to other associations start none), its fields
 * change (`dataset_metadata_update`), or one of its files is edited (`file_metadata_update`) or
 * marked ingested (`file_ingest`). Each occasion is evaluated by evaluateOccasion, outside the
 * consumer's transaction (see there for failures and retries).
 */
export function triggerEvaluationConsumer({ uow, dataFor, users, logger }: TriggerEvaluationDeps): ConsumerDefinition {
  return {
    name: TRIGGER_EVALUATION_CONSUMER,
    topics: [TOPICS.uploadCompleted, TOPICS.datasetChanged, TOPICS.fileChanged],
    // A dataset created, an upload into something else, a file change that is neither: no transaction.
    accepts: (message) => occasionsOf(message).length > 0,
    async handler(_em, message) {
      for (const occasion of occasionsOf(message)) await evaluateOccasion(uow, occasion, { dataFor, users }, logger);
    },
  };
}

/** The occasions an event is (none for events that start no evaluation). */
function occasionsOf(message: EventMessage): EvaluationOccasion[] {
  switch (message.topic) {
    case TOPICS.uploadCompleted: {
      const event = fromBinary(UploadCompletedSchema, message.payload);
      if (event.associationType !== "dataset") return [];
      const files = event.files.map((f) => ({ fileId: f.fileId, relativePath: f.relativePath }));
      return [{ cause: FILE_UPLOAD_CAUSE, orgId: event.orgId, datasetId: event.associationId, transactionId: event.transactionId, files }];
    }
    case TOPICS.datasetChanged: {
      const event = fromBinary(DatasetChangedSchema, message.payload);
      if (event.change !== DatasetChange.UPDATED) return [];
      return [{ cause: DATASET_METADATA_UPDATE_CAUSE, orgId: event.orgId, datasetId: event.datasetId, eventId: message.eventId }];
    }
    case TOPICS.fileChanged: {
      const event = fromBinary(FileChangedSchema, message.payload);
      if (event.associationType !== "dataset") return [];
      const common = { orgId: event.orgId, datasetId: event.associationId, eventId: message.eventId, file: { fileId: event.fileId, relativePath: event.relativePath } };
      return [
        ...(event.metadataUpdated ? [{ ...common, cause: FILE_METADATA_UPDATE_CAUSE } as const] : []),
        ...(event.ingested ? [{ ...common, cause: FILE_INGEST_CAUSE } as const] : []),
      ];
    }
    default:
      return [];
  }
}
