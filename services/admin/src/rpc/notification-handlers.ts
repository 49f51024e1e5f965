import { fromJson, toJson, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, fitPage, invalidArgument, planKeysetPage, settleBatchElement, type UnitOfWork } from "@hangar/shared";
import { NotificationSchema, type AdminService, type NotificationUpdateResultSchema, type UpdateNotificationRequest } from "@hangar/shared/proto/admin";
import { deleteNotification, getNotification, listNotifications, updateNotification, type NotificationUpdate } from "../domain/notification-use-cases";
import { checkReadStatus, type NotificationRecord } from "../domain/notifications";
import type { AdminRepositories } from "../domain/repositories";
import { getUserConfig, setUserConfig } from "../domain/user-config";
import { requireUser } from "./access";

type NotificationHandlers = Pick<
  ServiceImpl<typeof AdminService>,
  "listNotifications" | "getNotification" | "updateNotification" | "deleteNotification" | "batchUpdateNotifications" | "getUserConfig" | "setUserConfig"
>;

/**
 * The notification operations, for the recipient only (anyone else's notification is a 404).
 * Listings show the caller's notifications in the org it acts in (all of its orgs' when it names
 * none), newest first. And the caller's own configuration values, where its notification settings
 * are kept (`notification_channels`).
 */
export function createNotificationHandlers(uow: UnitOfWork<Pick<AdminRepositories, "notifications" | "userConfig">>): NotificationHandlers {
  return {
    async getUserConfig(req, ctx) {
      const value = await getUserConfig(uow, requireUser(callerOf(ctx)), req.key);
      return { config: { key: req.key, value: fromJson(ValueSchema, value) } };
    },

    async setUserConfig(req, ctx) {
      if (req.value === undefined) throw invalidArgument("value", "is required");
      await setUserConfig(uow, requireUser(callerOf(ctx)), req.key, toJson(ValueSchema, req.value));
      return {};
    },

    async listNotifications(req, ctx) {
      const caller = callerOf(ctx);
      const userId = requireUser(caller);
      const readStatus = req.readStatus === undefined ? undefined : checkReadStatus(req.readStatus);
      const filter = { userId, orgId: caller.orgId, readStatus };
      const page = planKeysetPage(req.pageSize, req.pageToken, `notifications:${JSON.stringify(filter)}`);
      const listed = await listNotifications(uow, filter, page);
      const items = fitPage(NotificationSchema, listed.rows.map(notificationToProto));
      const nextToken = page.nextToken(listed.keys[items.length - 1], listed.hasMore || items.length < listed.rows.length);
      return { items, totalCount: BigInt(listed.total), ...(nextToken ? { nextToken } : {}) };
    },

    async getNotification(req, ctx) {
      return { notification: notificationToProto(await getNotification(uow, requireUser(callerOf(ctx)), req.notificationId)) };
    },

    async updateNotification(req, ctx) {
      return { notification: notificationToProto(await updateNotification(uow, requireUser(callerOf(ctx)), updateOf(req))) };
    },

    async deleteNotification(req, ctx) {
      await deleteNotification(uow, requireUser(callerOf(ctx)), req.notificationId);
      return {};
    },

    // Each item on its own: one refused update answers its error in its place and stops no other.
    async batchUpdateNotifications(req, ctx) {
      const userId = requireUser(callerOf(ctx));
      const responses: MessageInitShape<typeof NotificationUpdateResultSchema>[] = [];
      for (const item of req.requests) responses.push(await settleBatchElement(async () => notificationToProto(await updateNotification(uow, userId, updateOf(item)))));
      return { responses };
    },
  };
}

function updateOf(req: UpdateNotificationRequest): NotificationUpdate {
  return { notificationId: req.notificationId, readStatus: req.readStatus, lifecycleStatus: req.lifecycleStatus };
}

/** A notification to its wire record. */
function notificationToProto(record: NotificationRecord): MessageInitShape<typeof NotificationSchema> {
  return {
    notificationId: record.notificationId,
    orgId: record.orgId,
    userId: record.userId,
    notifierId: record.notifierId,
    notificationType: record.notificationType,
    channels: record.channels,
    lifecycleStatus: record.lifecycleStatus,
    readStatus: record.readStatus,
    created: timestampFromDate(record.created),
    modified: timestampFromDate(record.modified),
  };
}
