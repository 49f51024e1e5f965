import { Migration } from "@mikro-orm/migrations";

/**
 * Notifications (issue 14) and users' configuration values (get/set_user_config), where the
 * channels users chose for their notifications are kept (`notification_channels`). One notification per event and
 * recipient (the unique index backs the consumer's processed-event record). `seq` orders a
 * recipient's listing newest first and is what its page tokens carry; the partial index is the
 * queue of emails still to send.
 */
export class Migration0004Notifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table notifications (
        notification_id text primary key,
        org_id text not null,
        user_id text not null,
        notifier_id text not null,
        notification_type text not null,
        channels text[] not null,
        lifecycle_status jsonb not null default '{}',
        read_status text not null default 'unread',
        created timestamptz not null,
        modified timestamptz not null,
        source_event_id text not null,
        detail jsonb not null,
        email_pending boolean not null default false,
        seq bigint generated always as identity
      );
      create unique index notifications_event_user_idx on notifications (source_event_id, user_id);
      create index notifications_user_idx on notifications (user_id, seq desc);
      create index notifications_email_pending_idx on notifications (seq) where email_pending;
      create table user_config (
        user_id text not null,
        key text not null,
        value jsonb not null,
        modified timestamptz not null,
        primary key (user_id, key)
      );
    `);
  }
}
