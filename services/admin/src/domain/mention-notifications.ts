import { newId } from "@hangar/shared";
import { DEFAULT_CHANNELS, type MentionDetail, type NotificationRecord } from "./notifications";
import type { AdminRepositories } from "./repositories";
import { chosenChannels } from "./user-config";

/** A comment-mention event as the admin service acts on it. */
export interface CommentMention extends MentionDetail {
  /** The event's id: each recipient is notified once per event, however often it arrives. */
  eventId: string;
  orgId: string;
  author: string;
  mentionedUserIds: readonly string[];
}

/**
 * Whether a mentioned user can see what the comment is on, as the service that owns it decides
 * (events/ asks the data service acting as that user). A user who cannot learns nothing.
 */
export interface MentionAccess {
  canSee(userId: string, mention: CommentMention): Promise<boolean>;
}

/**
 * Creates a `comment_mention` notification for each mentioned user (but the author) who can see
 * the comment's entity, on the channels the user chose (its `notification_channels` configuration;
 * all of them when it chose none); an email
 * is marked pending for the email channel and sent after the transaction commits (email-delivery).
 * Runs in the consumer's transaction, which records the event as handled. Returns how many it created.
 */
export async function notifyMentions(
  repositories: Pick<AdminRepositories, "notifications" | "userConfig">,
  access: MentionAccess,
  mention: CommentMention,
  now = new Date(),
): Promise<number> {
  let created = 0;
  for (const userId of new Set(mention.mentionedUserIds)) {
    if (userId === mention.author || !(await access.canSee(userId, mention))) continue;
    if (await repositories.notifications.insert(await mentionNotification(repositories, mention, userId, now))) created += 1;
  }
  return created;
}

async function mentionNotification(repositories: Pick<AdminRepositories, "userConfig">, mention: CommentMention, userId: string, now: Date): Promise<NotificationRecord> {
  const channels = (await chosenChannels(repositories.userConfig, userId)) ?? [...DEFAULT_CHANNELS];
  const email = channels.includes("email");
  return {
    notificationId: newId("nt"),
    orgId: mention.orgId,
    userId,
    notifierId: mention.author,
    notificationType: "comment_mention",
    channels,
    lifecycleStatus: email ? { email: "Initiated" } : {},
    readStatus: "unread",
    created: now,
    modified: now,
    sourceEventId: mention.eventId,
    detail: { commentId: mention.commentId, entityType: mention.entityType, entityId: mention.entityId, commentText: mention.commentText },
    emailPending: email,
  };
}
