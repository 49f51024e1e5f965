import { Migration } from "@mikro-orm/migrations";

/**
 * Topics with their message paths and representations, and the timeline sources and extents that
 * file topic registration records. A topic belongs to one association (a dataset or a file) and is
 * unique there by name; `seq` orders listings newest first and is what page tokens carry. Message
 * paths, representations and timelines go with their topic (foreign keys, cascade). Deleting a file
 * row or a dataset row removes the topics associated with it (and with a deleted dataset's files):
 * triggers, so every deletion path (a file delete, the background cleanup, a dataset delete) is
 * covered in the deleting statement's own transaction, one statement per batch.
 */
export class Migration0009Topics extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table topics (
        topic_id text primary key,
        org_id text not null,
        association_type text not null,
        association_id text not null,
        association_version bigint,
        topic_name text not null,
        schema_name text,
        schema_checksum text,
        schema_id text,
        start_time bigint,
        end_time bigint,
        message_count bigint,
        metadata jsonb not null default '{}',
        default_representation_id text,
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        seq bigint generated always as identity
      );
      create unique index topics_association_name_idx on topics (association_id, topic_name);
      create index topics_association_seq_idx on topics (association_id, seq desc) include (org_id);
      create table message_paths (
        message_path_id text primary key,
        topic_id text not null references topics (topic_id) on delete cascade,
        org_id text not null,
        message_path text not null,
        source_path text not null,
        path_in_schema text[] not null,
        data_type text not null,
        canonical_data_type text not null,
        metadata jsonb not null default '{}',
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        seq bigint generated always as identity
      );
      create unique index message_paths_topic_path_idx on message_paths (topic_id, message_path);
      create table representations (
        representation_id text primary key,
        topic_id text not null references topics (topic_id) on delete cascade,
        org_id text not null,
        association_type text not null,
        association_id text not null,
        association_version bigint,
        storage_format text not null,
        version bigint not null,
        format text,
        transformations text[] not null default '{}',
        created timestamptz not null,
        modified timestamptz not null,
        seq bigint generated always as identity
      );
      create index representations_topic_idx on representations (topic_id, seq);
      alter table topics add constraint topics_default_representation_fk
        foreign key (default_representation_id) references representations (representation_id) on delete set null deferrable initially deferred;
      create table message_path_representations (
        message_path_id text not null references message_paths (message_path_id) on delete cascade,
        representation_id text not null references representations (representation_id) on delete cascade,
        primary key (representation_id, message_path_id)
      );
      create index message_path_representations_path_idx on message_path_representations (message_path_id);
      create table timeline_sources (
        timeline_source_id text primary key,
        topic_id text not null references topics (topic_id) on delete cascade,
        org_id text not null,
        name text not null,
        kind text not null,
        field_path text[] not null default '{}',
        is_default_for_reads boolean not null default false,
        unique (topic_id, name)
      );
      create table timeline_extents (
        timeline_extent_id text primary key,
        timeline_source_id text not null references timeline_sources (timeline_source_id) on delete cascade,
        topic_part_id text not null,
        file_id text not null,
        data_range int8range,
        org_id text not null,
        min_timestamp bigint,
        max_timestamp bigint,
        unix_epoch_offset_ns bigint not null default 0,
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null
      );
      create unique index timeline_extents_part_idx on timeline_extents (timeline_source_id, topic_part_id);
      create index timeline_extents_file_idx on timeline_extents (file_id);

      create function delete_topics_of_deleted_nodes() returns trigger language plpgsql as $$
      begin
        delete from topics where association_id in (select node_id from gone);
        return null;
      end $$;
      create trigger fs_nodes_delete_topics after delete on fs_nodes
        referencing old table as gone for each statement execute function delete_topics_of_deleted_nodes();
      create function delete_topics_of_deleted_datasets() returns trigger language plpgsql as $$
      begin
        delete from topics where association_id in (select dataset_id from gone)
          or association_id in (select n.node_id from fs_nodes n join gone g on n.association_id = g.dataset_id);
        return null;
      end $$;
      create trigger datasets_delete_topics after delete on datasets
        referencing old table as gone for each statement execute function delete_topics_of_deleted_datasets();
    `);
  }
}
