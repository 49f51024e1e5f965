import { fromBinary } from "@bufbuild/protobuf";
import { TOPICS, type ConsumerDefinition, type EntityManager } from "@hangar/shared";
import { CommentMentionSchema } from "@hangar/shared/proto/events";
import { notifyMentions, type MentionAccess } from "../domain/mention-notifications";
import type { AdminRepositories } from "../domain/repositories";

/**
 * Turns the data service's comment-mention events into `comment_mention` notifications. The
 * notifications are written in the transaction that records the event as handled, so a redelivery
 * or a crash before the commit notifies nobody twice; `access` binds the check of who can see the
 * entity to the same transaction's repositories.
 */
export function commentMentionConsumer(
  repositoriesIn: (em: EntityManager) => AdminRepositories,
  access: (repositories: AdminRepositories) => MentionAccess,
): ConsumerDefinition {
  return {
    name: "admin.comment-mentions",
    topics: [TOPICS.commentMention],
    handler: async (em, message) => {
      const event = fromBinary(CommentMentionSchema, message.payload);
      const repositories = repositoriesIn(em);
      await notifyMentions(repositories, access(repositories), {
        eventId: message.eventId,
        orgId: event.orgId,
        author: event.author,
        mentionedUserIds: event.mentionedUserIds,
        commentId: event.commentId,
        entityType: event.entityType,
        entityId: event.entityId,
        commentText: event.commentText,
      });
    },
  };
}
