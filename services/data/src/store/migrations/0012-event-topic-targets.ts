import { Migration } from "@mikro-orm/migrations";

/**
 * Events about topics and message paths, tied to them as events about datasets and files are:
 * a deleted topic (by any path: its own delete, or its file's or dataset's deletion) or message
 * path takes its event associations with it, and an event whose last association goes is deleted
 * by 0010's trigger. Migration 0010 came before the topics tables were merged, so no association
 * of these types can exist yet; the update is there for completeness.
 */
export class Migration0012EventTopicTargets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table event_associations
        add column topic_id text references topics (topic_id) on delete cascade,
        add column message_path_id text references message_paths (message_path_id) on delete cascade;
      update event_associations set topic_id = association_id where association_type = 'topic';
      update event_associations set message_path_id = association_id where association_type = 'message_path';
      alter table event_associations
        add constraint event_associations_topic_check check ((association_type = 'topic') = (topic_id is not null)),
        add constraint event_associations_message_path_check check ((association_type = 'message_path') = (message_path_id is not null));
      create index event_associations_topic_idx on event_associations (topic_id) where topic_id is not null;
      create index event_associations_message_path_idx on event_associations (message_path_id) where message_path_id is not null;
    `);
  }
}
