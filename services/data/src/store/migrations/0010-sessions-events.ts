import { Migration } from "@mikro-orm/migrations";

/**
 * Sessions with their devices and files, and events (the API's word; `robot_events` here, as the
 * outbox's events are another thing) with their associations. The `seq` identity columns order
 * listings and are what their page tokens carry.
 *
 * Deleting what a session or an event points at cleans up after itself through the foreign keys:
 * a deleted device leaves its sessions (the link goes), a file removed by any path (a single
 * delete, or the background cleanup after its dataset or device) leaves its sessions and its
 * event associations, and a deleted dataset takes its event associations at once. An event whose
 * last association goes is deleted with it (the trigger), since an event is about something.
 * Topic and message-path associations have no foreign key until those tables exist. The links'
 * keys to their session or event are checked at commit (deferred), as the unit of work writes the
 * session or event row itself then, after the links.
 */
export class Migration0010SessionsEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table sessions (
        session_id text primary key,
        org_id text not null,
        name text,
        description text,
        metadata jsonb not null default '{}',
        custom_fields jsonb not null default '{}',
        tags text[] not null default '{}',
        status text not null default 'in_progress' check (status in ('in_progress', 'complete')),
        inactivity_minutes integer check (inactivity_minutes between 1 and 10080),
        completes_at timestamptz,
        completed_at timestamptz,
        completed_by text,
        ingested_at timestamptz,
        ingestion_count integer not null default 0,
        min_timestamp_ns bigint,
        max_timestamp_ns bigint,
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        seq bigint generated always as identity
      );
      create index sessions_org_seq_idx on sessions (org_id, seq desc);
      create index sessions_due_idx on sessions (completes_at) where status = 'in_progress' and completes_at is not null;
      create index sessions_metadata_idx on sessions using gin (metadata jsonb_path_ops);

      create table session_devices (
        session_id text not null references sessions (session_id) on delete cascade deferrable initially deferred,
        universal_device_id text not null references devices (universal_device_id) on delete cascade,
        seq bigint generated always as identity,
        primary key (session_id, universal_device_id)
      );
      create index session_devices_device_idx on session_devices (universal_device_id, session_id);

      create table session_files (
        session_id text not null references sessions (session_id) on delete cascade deferrable initially deferred,
        file_id text not null references fs_nodes (node_id) on delete cascade,
        data_range_start bigint,
        data_range_end bigint,
        unix_epoch_offset_ns bigint,
        min_file_timestamp_ns bigint,
        max_file_timestamp_ns bigint,
        skipped_at timestamptz,
        skipped_by text,
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        seq bigint generated always as identity,
        primary key (session_id, file_id),
        check ((data_range_start is null) = (data_range_end is null)),
        check ((min_file_timestamp_ns is null) = (max_file_timestamp_ns is null))
      );
      create index session_files_file_idx on session_files (file_id, session_id);
      create index session_files_session_seq_idx on session_files (session_id, seq);

      create table robot_events (
        event_id text primary key,
        org_id text not null,
        name text not null,
        description text,
        start_time bigint not null,
        end_time bigint not null check (end_time >= start_time),
        metadata jsonb not null default '{}',
        custom_fields jsonb not null default '{}',
        tags text[] not null default '{}',
        display_color text,
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        seq bigint generated always as identity
      );
      create index robot_events_org_seq_idx on robot_events (org_id, seq desc);

      create table event_associations (
        event_id text not null references robot_events (event_id) on delete cascade deferrable initially deferred,
        association_type text not null check (association_type in ('dataset', 'file', 'topic', 'message_path')),
        association_id text not null,
        association_version bigint,
        dataset_id text references datasets (dataset_id) on delete cascade,
        file_id text references fs_nodes (node_id) on delete cascade,
        position integer not null,
        primary key (event_id, association_type, association_id),
        check ((association_type = 'dataset') = (dataset_id is not null)),
        check ((association_type = 'file') = (file_id is not null))
      );
      create index event_associations_target_idx on event_associations (association_id, association_type, event_id);
      create index event_associations_dataset_idx on event_associations (dataset_id) where dataset_id is not null;
      create index event_associations_file_idx on event_associations (file_id) where file_id is not null;

      create function drop_unassociated_robot_event() returns trigger language plpgsql as $$
      begin
        delete from robot_events e
        where e.event_id = old.event_id
          and not exists (select 1 from event_associations a where a.event_id = old.event_id);
        return null;
      end
      $$;
      create trigger event_associations_last_gone after delete on event_associations
        for each row execute function drop_unassociated_robot_event();
    `);
  }
}
