import { Migration } from "@mikro-orm/migrations";

/**
 * Saved queries (issue 14) and the indexes their targets need. A saved query keeps what was asked
 * (`query`, a QuerySpecification as JSON, whatever form it was submitted in) and its lifecycle;
 * its results are read again page by page, so nothing is copied. Topics, message paths and events
 * get the (org, created, id) index a default-sorted page walks, and topics and message paths the
 * indexes that let a cross-resource condition (a topic named X, a message path of type Y) start
 * from the matching rows.
 */
export class Migration0015SavedQueries extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table saved_queries (
        query_id text primary key,
        org_id text not null,
        target text not null,
        content_mode text not null,
        query_scheme text not null,
        query jsonb not null,
        status text not null check (status in ('scheduled', 'results_available', 'failed')),
        failure_reason text,
        result_count bigint not null default 0,
        submitted timestamptz not null,
        submitted_by text not null,
        modified timestamptz not null
      );
      create index saved_queries_org_idx on saved_queries (org_id, submitted desc);
      create index topics_org_created_idx on topics (org_id, created desc, topic_id desc);
      create index topics_org_name_idx on topics (org_id, topic_name);
      create index message_paths_org_created_idx on message_paths (org_id, created desc, message_path_id desc);
      create index message_paths_org_path_idx on message_paths (org_id, message_path);
      create index message_paths_org_type_idx on message_paths (org_id, data_type);
      create index robot_events_org_created_idx on robot_events (org_id, created desc, event_id desc);
    `);
  }
}
