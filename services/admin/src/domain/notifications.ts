import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { invalidArgument, quoteValue, type ListedPage } from "@hangar/shared";

/** The notification types there are: a mention in a comment. */
export type NotificationType = "comment_mention";

/** Where a notification is delivered, as the client SDK names the channels. */
export const NOTIFICATION_CHANNELS = ["email", "web_ui"] as const;
/** One of NOTIFICATION_CHANNELS. */
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/** The channels of a user who has chosen none: all of them. */
export const DEFAULT_CHANNELS: readonly NotificationChannel[] = NOTIFICATION_CHANNELS;

/** A notification's read statuses; new ones are `unread`. */
export const READ_STATUSES = ["unread", "read"] as const;
/** One of READ_STATUSES. */
export type ReadStatus = (typeof READ_STATUSES)[number];

/**
 * The delivery states each channel may report (the client SDK's EmailLifecycleStatus and
 * WebUiLifecycleStatus): an email starts `Initiated` and the platform sets `Send` or `Failed`.
 */
export const LIFECYCLE_STATUSES: Record<NotificationChannel, readonly string[]> = {
  email: ["Initiated", "Send", "Failed", "Reject", "Bounce", "Complaint", "Delivery", "Open", "Click", "RenderingFailure", "DeliveryDelay", "Subscription"],
  web_ui: ["Acknowledged"],
};

/** What a comment_mention notification is about, for its messages. */
export interface MentionDetail {
  commentId: string;
  entityType: string;
  entityId: string;
  commentText: string;
}

/** A notification of one recipient (`userId`). `sourceEventId` is the event that caused it: one notification per event and recipient. */
export interface NotificationRecord {
  notificationId: string;
  orgId: string;
  userId: string;
  notifierId: string;
  notificationType: NotificationType;
  channels: NotificationChannel[];
  lifecycleStatus: Record<string, string>;
  readStatus: ReadStatus;
  created: Date;
  modified: Date;
  sourceEventId: string;
  detail: MentionDetail;
  /** Whether an email is still to be sent for it (see email-delivery). */
  emailPending: boolean;
}

/** Whose notifications a listing shows: a recipient's, in one org or all, with one read status or any. */
export interface NotificationFilter {
  userId: string;
  orgId: string | undefined;
  readStatus: ReadStatus | undefined;
}

/** One page of a newest-first listing, each row with its key (so a page cut short can continue after any row). */
export type NotificationPage = ListedPage<NotificationRecord>;

/** Notifications. Found records are tracked: changes are written on commit. */
export interface NotificationRepository {
  /** A notification of the recipient, locked for update when asked (in a transaction). */
  find(userId: string, notificationId: string, lock?: boolean): Promise<NotificationRecord | null>;
  /** Inserts a notification; false, writing nothing, when its event already notified its recipient. */
  insert(record: NotificationRecord): Promise<boolean>;
  remove(record: NotificationRecord): void;
  /** At most `limit` notifications, newest first, with keys below `before`. */
  list(filter: NotificationFilter, range: { limit: number; before: number | undefined }): Promise<NotificationPage>;
  /** Up to `limit` notifications with an email to send, locked (SKIP LOCKED: replicas share the work) until the transaction ends. */
  claimPendingEmails(limit: number): Promise<NotificationRecord[]>;
}

/** Validates a read status; a 400 naming `field` lists the allowed ones. */
export function checkReadStatus(value: string, field = "read_status"): ReadStatus {
  if ((READ_STATUSES as readonly string[]).includes(value)) return value as ReadStatus;
  throw invalidArgument(field, `must be one of ${READ_STATUSES.join(", ")}, got ${quoteValue(value)}`);
}

/**
 * Validates lifecycle statuses as a request gives them (a JSON object of channel to status): each
 * key a channel, each value one of that channel's statuses. A 400 names the offending entry.
 */
export function checkLifecycleStatus(value: JsonObject, field = "lifecycle_status"): Record<string, string> {
  const statuses: Record<string, string> = {};
  for (const [channel, status] of Object.entries(value)) {
    if (!(NOTIFICATION_CHANNELS as readonly string[]).includes(channel)) {
      throw invalidArgument(field, `keys must be channels (${NOTIFICATION_CHANNELS.join(", ")}), got ${quoteValue(channel)}`);
    }
    const allowed = LIFECYCLE_STATUSES[channel as NotificationChannel];
    if (!isString(status) || !allowed.includes(status)) {
      throw invalidArgument(`${field}.${channel}`, `must be one of ${allowed.join(", ")}, got ${quoteValue(JSON.stringify(status))}`);
    }
    statuses[channel] = status;
  }
  return statuses;
}

function isString(value: JsonValue | undefined): value is string {
  return typeof value === "string";
}
