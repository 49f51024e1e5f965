import { fromBinary } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { invalidArgument, TOPICS, type ConsumerDefinition, type EntityManager } from "@hangar/shared";
import { ComputeEntityDeletedSchema } from "@hangar/shared/proto/events";
import { removeCommentsOfDeleted, type CommentRepositories } from "../domain/comment-use-cases";

/** The consumer's name: its Kafka group and the key of its processed-event records. */
export const COMPUTE_DELETION_CONSUMER = "data.compute-deletions";

/**
 * Removes the comments of the actions, invocations and triggers the compute service deletes. The
 * removal is written in the transaction that records the event as handled, so a redelivery or a
 * crash before the commit removes nothing twice.
 */
export function computeDeletionConsumer(repositoriesIn: (em: EntityManager) => Pick<CommentRepositories, "comments">): ConsumerDefinition {
  return {
    name: COMPUTE_DELETION_CONSUMER,
    topics: [TOPICS.computeEntityDeleted],
    handler: async (em, message) => {
      const event = fromBinary(ComputeEntityDeletedSchema, message.payload);
      if (!event.deleted) throw invalidArgument("deleted", "is required");
      await removeCommentsOfDeleted(repositoriesIn(em), { orgId: event.orgId, entityType: event.entityType, entityId: event.entityId, deleted: timestampDate(event.deleted) });
    },
  };
}
