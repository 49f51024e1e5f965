import type { JsonObject } from "@bufbuild/protobuf";
import { notFound, type UnitOfWork } from "@hangar/shared";
import { checkLifecycleStatus, checkReadStatus, type NotificationFilter, type NotificationPage, type NotificationRecord } from "./notifications";
import type { AdminRepositories } from "./repositories";

/** What the notification use cases reach. */
export type NotificationUnitOfWork = UnitOfWork<Pick<AdminRepositories, "notifications">>;

/** An update of one notification as a request gives it: an absent field stays. */
export interface NotificationUpdate {
  notificationId: string;
  readStatus?: string | undefined;
  /** Replaces every channel's status when given. */
  lifecycleStatus?: JsonObject | undefined;
}

/** One page of the recipient's notifications, newest first. */
export function listNotifications(uow: NotificationUnitOfWork, filter: NotificationFilter, range: { limit: number; before: number | undefined }): Promise<NotificationPage> {
  return uow.repositories().notifications.list(filter, range);
}

/** A notification of the recipient; anyone else's is a 404, so nothing leaks. */
export async function getNotification(uow: NotificationUnitOfWork, userId: string, notificationId: string): Promise<NotificationRecord> {
  const record = await uow.repositories().notifications.find(userId, notificationId);
  if (!record) throw notFound("notification", notificationId);
  return record;
}

/** Sets the read status and, when given, replaces the lifecycle statuses of a notification of the recipient. */
export function updateNotification(uow: NotificationUnitOfWork, userId: string, update: NotificationUpdate): Promise<NotificationRecord> {
  const readStatus = update.readStatus === undefined ? undefined : checkReadStatus(update.readStatus);
  const lifecycleStatus = update.lifecycleStatus === undefined ? undefined : checkLifecycleStatus(update.lifecycleStatus);
  return uow.transaction(async ({ notifications }) => {
    const record = await notifications.find(userId, update.notificationId, true);
    if (!record) throw notFound("notification", update.notificationId);
    if (readStatus !== undefined) record.readStatus = readStatus;
    if (lifecycleStatus !== undefined) record.lifecycleStatus = lifecycleStatus;
    record.modified = new Date();
    return record;
  });
}

/** Deletes a notification of the recipient. */
export async function deleteNotification(uow: NotificationUnitOfWork, userId: string, notificationId: string): Promise<void> {
  await uow.transaction(async ({ notifications }) => {
    const record = await notifications.find(userId, notificationId, true);
    if (!record) throw notFound("notification", notificationId);
    notifications.remove(record);
  });
}
