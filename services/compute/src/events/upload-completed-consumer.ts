import { fromBinary } from "@bufbuild/protobuf";
import { TOPICS, type ConsumerDefinition, type ServiceContext } from "@hangar/shared";
import { UploadCompletedSchema } from "@hangar/shared/proto/events";
import { createInvocation } from "../domain/invoke";
import {
  FILE_UPLOAD_CAUSE,
  failureDetail,
  isPermanentFailure,
  outcomeOf,
  planEvaluation,
  type CompletedUpload,
  type EvaluatedTrigger,
  type TriggerDataQueries,
} from "../domain/trigger-evaluation";
import { TriggerStore } from "../store/trigger-store";
import { dataServiceQueries } from "./data-queries";

/** The consumer's name: its Kafka group and the key of its processed-event records. */
export const TRIGGER_EVALUATION_CONSUMER = "compute.trigger-evaluation";

/**
 * Evaluates the org's triggers that react to `file_upload` when an upload into a dataset
 * completes (uploads to other associations start none). Each trigger's evaluation commits on its
 * own, outside the consumer's transaction, so that a failed one keeps its `failed` record and does
 * not undo the others. When the data service or the database is out, the evaluation fails and the
 * event is retried once every trigger was tried: the retry skips evaluations already made, and the
 * idempotency ids of the invocations keep each firing single. A refusal (a condition the data
 * service rejects, a deleted action) only fails that evaluation; retrying could not help.
 */
export function uploadCompletedConsumer(context: ServiceContext): ConsumerDefinition {
  // One data service client per org, reused across events: each holds an HTTP/2 connection.
  const clients = new Map<string, TriggerDataQueries>();
  const dataFor = (orgId: string): TriggerDataQueries => {
    let client = clients.get(orgId);
    if (!client) clients.set(orgId, (client = dataServiceQueries(context, orgId)));
    return client;
  };
  return {
    name: TRIGGER_EVALUATION_CONSUMER,
    topics: [TOPICS.uploadCompleted],
    async handler(_em, message) {
      const event = fromBinary(UploadCompletedSchema, message.payload);
      if (event.associationType !== "dataset") return;
      const upload: CompletedUpload = {
        orgId: event.orgId,
        datasetId: event.associationId,
        transactionId: event.transactionId,
        files: event.files.map((f) => ({ fileId: f.fileId, relativePath: f.relativePath })),
      };
      await evaluateUpload(context, upload, dataFor);
    },
  };
}

async function evaluateUpload(context: ServiceContext, upload: CompletedUpload, dataFor: (orgId: string) => TriggerDataQueries): Promise<void> {
  const triggers = await new TriggerStore(context.orm.em.fork()).reactingTo(upload.orgId, FILE_UPLOAD_CAUSE);
  if (triggers.length === 0) return;
  const data = dataFor(upload.orgId);
  let outage: unknown;
  for (const trigger of triggers) {
    try {
      await evaluateTrigger(context, trigger, upload, data);
    } catch (error) {
      outage ??= error;
    }
  }
  if (outage !== undefined) throw outage;
}

async function evaluateTrigger(context: ServiceContext, trigger: EvaluatedTrigger, upload: CompletedUpload, data: TriggerDataQueries): Promise<void> {
  const store = new TriggerStore(context.orm.em.fork());
  const evaluationId = await store.beginEvaluation(trigger.triggerId, upload, FILE_UPLOAD_CAUSE);
  if (evaluationId === undefined) return;
  try {
    const plan = await planEvaluation(trigger, upload, { data, invoked: (ids) => store.invokedIdempotencyIds(trigger.orgId, ids) });
    await context.orm.em.fork().transactional(async (em) => {
      let created = 0;
      if ("invoke" in plan) {
        for (const request of plan.invoke) if ((await createInvocation(em, request)).created) created++;
      }
      await new TriggerStore(em).finishEvaluation(evaluationId, outcomeOf(plan, created));
    });
  } catch (error) {
    const detail = failureDetail(error);
    context.runtime.logger.warn({ triggerId: trigger.triggerId, transactionId: upload.transactionId, detail }, "trigger evaluation failed");
    await store.failEvaluation(evaluationId, detail);
    if (!isPermanentFailure(error)) throw error;
  }
}
