import { EntitySchema, LockMode } from "@mikro-orm/core";
import { listedPage, rawSql, sql, textArrayLiteral, timestampFromRow, type EntityManager, type ListedRange } from "@hangar/shared";
import type {
  MentionDetail,
  NotificationChannel,
  NotificationFilter,
  NotificationPage,
  NotificationRecord,
  NotificationRepository,
  NotificationType,
  ReadStatus,
} from "../domain/notifications";

// The table also has a `seq` identity column that orders listings; only the listing's SQL reads it.
export const Notification = new EntitySchema<NotificationRecord>({
  name: "Notification",
  tableName: "notifications",
  properties: {
    notificationId: { type: "string", primary: true },
    orgId: { type: "string" },
    userId: { type: "string" },
    notifierId: { type: "string" },
    notificationType: { type: "string" },
    channels: { type: "string[]" },
    lifecycleStatus: { type: "json" },
    readStatus: { type: "string" },
    created: { type: "Date" },
    modified: { type: "Date" },
    sourceEventId: { type: "string" },
    detail: { type: "json" },
    emailPending: { type: "boolean" },
  },
});

/** The notification entities of the admin service. */
export const notificationEntities = [Notification];

/** `NotificationRepository` over MikroORM; the listing and the email queue are SQL. */
export class NotificationStore implements NotificationRepository {
  constructor(private readonly em: EntityManager) {}

  find(userId: string, notificationId: string, lock = false): Promise<NotificationRecord | null> {
    return this.em.findOne(Notification, { userId, notificationId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  // One statement, so that two deliveries of one event racing each other cannot both insert.
  async insert(record: NotificationRecord): Promise<boolean> {
    const rows = await this.em.execute(
      `insert into notifications (notification_id, org_id, user_id, notifier_id, notification_type, channels, lifecycle_status, read_status, created, modified, source_event_id, detail, email_pending)
       values (?, ?, ?, ?, ?, ?::text[], ?::jsonb, ?, ?, ?, ?, ?::jsonb, ?) on conflict (source_event_id, user_id) do nothing returning notification_id`,
      [
        record.notificationId,
        record.orgId,
        record.userId,
        record.notifierId,
        record.notificationType,
        textArrayLiteral(record.channels),
        JSON.stringify(record.lifecycleStatus),
        record.readStatus,
        record.created,
        record.modified,
        record.sourceEventId,
        JSON.stringify(record.detail),
        record.emailPending,
      ],
    );
    return rows.length > 0;
  }

  remove(record: NotificationRecord): void {
    this.em.remove(record);
  }

  list(filter: NotificationFilter, range: ListedRange): Promise<NotificationPage> {
    const where = sql`user_id = ${filter.userId} and ${filter.orgId === undefined ? rawSql("true") : sql`org_id = ${filter.orgId}`} and ${
      filter.readStatus === undefined ? rawSql("true") : sql`read_status = ${filter.readStatus}`
    }`;
    return listedPage(this.em, { select: rawSql("*"), from: rawSql("notifications"), where, seq: "seq" }, range, notificationFromRow);
  }


  async claimPendingEmails(limit: number): Promise<NotificationRecord[]> {
    const rows = await this.em.execute<{ notification_id: string }[]>(
      "select notification_id from notifications where email_pending order by seq limit ? for update skip locked",
      [limit],
    );
    if (rows.length === 0) return [];
    return this.em.find(Notification, { notificationId: { $in: rows.map((row) => row.notification_id) } }, { orderBy: { created: "asc" } });
  }
}

function notificationFromRow(row: Record<string, unknown>): NotificationRecord {
  return {
    notificationId: row.notification_id as string,
    orgId: row.org_id as string,
    userId: row.user_id as string,
    notifierId: row.notifier_id as string,
    notificationType: row.notification_type as NotificationType,
    channels: row.channels as NotificationChannel[],
    lifecycleStatus: row.lifecycle_status as Record<string, string>,
    readStatus: row.read_status as ReadStatus,
    created: timestampFromRow(row.created),
    modified: timestampFromRow(row.modified),
    sourceEventId: row.source_event_id as string,
    detail: row.detail as MentionDetail,
    emailPending: row.email_pending as boolean,
  };
}
