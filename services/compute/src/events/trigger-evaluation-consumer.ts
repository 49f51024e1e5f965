import { fromBinary } from "@bufbuild/protobuf";
import { TOPICS, type ConsumerDefinition, type EventMessage, type ServiceContext, type UserDirectory } from "@hangar/shared";
import { DatasetChange, DatasetChangedSchema, FileChangedSchema, UploadCompletedSchema } from "@hangar/shared/proto/events";
import { createInvocation } from "../domain/invoke";
import {
  DATASET_METADATA_UPDATE_CAUSE,
  FILE_INGEST_CAUSE,
  FILE_METADATA_UPDATE_CAUSE,
  FILE_UPLOAD_CAUSE,
  failureDetail,
  isPermanentFailure,
  occasionKey,
  outcomeOf,
  planEvaluation,
  type EvaluatedTrigger,
  type EvaluationOccasion,
  type EvaluationSources,
  type TriggerDataQueries,
} from "../domain/trigger-evaluation";
import { TriggerStore } from "../store/trigger-store";
import { adminUserDirectory } from "../admin-user-directory";
import { dataServiceClients } from "../data-service-clients";
import { dataServiceQueries } from "./data-queries";

/** The consumer's name: its Kafka group and the key of its processed-event records. */
export const TRIGGER_EVALUATION_CONSUMER = "compute.trigger-evaluation";

/**
 * Evaluates the org's triggers when something happens to a dataset: an upload into it completes
 * (triggers reacting to `file_upload`; uploads to other associations start none), its fields
 * change (`dataset_metadata_update`), or one of its files is edited (`file_metadata_update`) or
 * marked ingested (`file_ingest`). Each trigger's evaluation commits on its own, outside the
 * consumer's transaction, so that a failed one keeps its `failed` record and does not undo the
 * others. When the data service or the database is out, the evaluation fails and the event is
 * retried once every trigger was tried: the retry skips evaluations already made, and the
 * idempotency ids of the invocations keep each firing single. A refusal (a condition the data
 * service rejects, a deleted action) only fails that evaluation; retrying could not help.
 */
export function triggerEvaluationConsumer(context: ServiceContext): ConsumerDefinition {
  const clientFor = dataServiceClients(context);
  const dataFor = (orgId: string): TriggerDataQueries => dataServiceQueries(clientFor(orgId));
  const users = adminUserDirectory(context);
  return {
    name: TRIGGER_EVALUATION_CONSUMER,
    topics: [TOPICS.uploadCompleted, TOPICS.datasetChanged, TOPICS.fileChanged],
    async handler(_em, message) {
      for (const occasion of occasionsOf(message)) await evaluateOccasion(context, occasion, { dataFor, users });
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

/** Where evaluations read from, per org. */
interface EvaluationReaders {
  dataFor: (orgId: string) => TriggerDataQueries;
  users: UserDirectory;
}

async function evaluateOccasion(context: ServiceContext, occasion: EvaluationOccasion, readers: EvaluationReaders): Promise<void> {
  const triggers = await new TriggerStore(context.orm.em.fork()).reactingTo(occasion.orgId, occasion.cause);
  if (triggers.length === 0) return;
  const sources = { data: readers.dataFor(occasion.orgId), users: readers.users };
  let outage: unknown;
  for (const trigger of triggers) {
    try {
      await evaluateTrigger(context, trigger, occasion, sources);
    } catch (error) {
      outage ??= error;
    }
  }
  if (outage !== undefined) throw outage;
}

async function evaluateTrigger(context: ServiceContext, trigger: EvaluatedTrigger, occasion: EvaluationOccasion, sources: Omit<EvaluationSources, "invoked">): Promise<void> {
  const store = new TriggerStore(context.orm.em.fork());
  const evaluationId = await store.beginEvaluation(trigger.triggerId, occasion);
  if (evaluationId === undefined) return;
  try {
    const plan = await planEvaluation(trigger, occasion, { ...sources, invoked: (ids) => store.invokedIdempotencyIds(trigger.orgId, ids) });
    await context.orm.em.fork().transactional(async (em) => {
      let created = 0;
      if ("invoke" in plan) {
        for (const request of plan.invoke) if ((await createInvocation(em, request)).created) created++;
      }
      await new TriggerStore(em).finishEvaluation(evaluationId, outcomeOf(plan, created));
    });
  } catch (error) {
    const detail = failureDetail(error);
    context.runtime.logger.warn({ triggerId: trigger.triggerId, occasion: occasionKey(occasion), detail }, "trigger evaluation failed");
    await store.failEvaluation(evaluationId, detail);
    if (!isPermanentFailure(error)) throw error;
  }
}
