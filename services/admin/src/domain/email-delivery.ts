import type { Logger, UnitOfWork } from "@hangar/shared";
import type { NotificationRecord } from "./notifications";
import type { AdminRepositories } from "./repositories";

/** An email as the platform sends it: plain text to one recipient. */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends email (the SMTP mailer of the config table's SMTP settings, see email/smtp-mailer.ts). */
export interface Mailer {
  send(message: EmailMessage): Promise<void>;
}

/** How many pending emails one run sends, each run one transaction. */
export const EMAIL_BATCH = 20;

// A user id is its e-mail address when it looks like one (the client SDK's users are addressed so).
const ADDRESS = /^[^@\s<>()",;]+@[^@\s<>()",;]+\.[^@\s<>()",;]+$/;

/** The address a user's email goes to: the user id when it is an e-mail address, else none. */
export function emailAddressOf(userId: string): string | undefined {
  return ADDRESS.test(userId) ? userId : undefined;
}

/** The email of a comment_mention notification: who mentioned the user where, and the comment's text. */
export function mentionEmail(notification: NotificationRecord, to: string): EmailMessage {
  const { detail } = notification;
  const where = `${detail.entityType} ${detail.entityId}`;
  return {
    to,
    subject: `${notification.notifierId} mentioned you in a comment on ${where}`,
    text: [
      `${notification.notifierId} mentioned you in a comment on ${where} (org ${notification.orgId}):`,
      "",
      detail.commentText,
      "",
      `Comment: ${detail.commentId}`,
      `Notification: ${notification.notificationId}`,
    ].join("\n"),
  };
}

/**
 * Sends up to EMAIL_BATCH pending notification emails and records each outcome in the
 * notification's `lifecycle_status.email` (`Send` or `Failed`), in one transaction that holds the
 * rows (SKIP LOCKED, so replicas share the queue). Mail goes out before the commit: a crash in
 * between sends that email again on the next run (at least once; SMTP offers no way to make a
 * send and a commit one). Without a mailer (no SMTP settings) or an address the email fails.
 * Returns how many it handled.
 */
export function deliverPendingEmails(uow: UnitOfWork<Pick<AdminRepositories, "notifications">>, mailer: Mailer | undefined, logger: Logger): Promise<number> {
  return uow.transaction(async ({ notifications }) => {
    const pending = await notifications.claimPendingEmails(EMAIL_BATCH);
    for (const notification of pending) {
      notification.lifecycleStatus = { ...notification.lifecycleStatus, email: await deliver(notification, mailer, logger) };
      notification.emailPending = false;
      notification.modified = new Date();
    }
    return pending.length;
  });
}

async function deliver(notification: NotificationRecord, mailer: Mailer | undefined, logger: Logger): Promise<"Send" | "Failed"> {
  const to = emailAddressOf(notification.userId);
  if (!mailer || !to) {
    logger.warn({ notificationId: notification.notificationId, reason: mailer ? "no e-mail address" : "no SMTP settings" }, "notification email not sent");
    return "Failed";
  }
  try {
    await mailer.send(mentionEmail(notification, to));
    return "Send";
  } catch (error) {
    logger.warn({ err: error, notificationId: notification.notificationId }, "notification email failed");
    return "Failed";
  }
}
