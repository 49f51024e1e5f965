import { Migration } from "@mikro-orm/migrations";

/**
 * Files and directories (one table: they share paths and moves), earlier file versions, and
 * upload transactions with their manifest items. A path holds at most one available node per
 * association; pending files of open uploads do not occupy it.
 */
export class Migration0002Files extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table fs_nodes (
        node_id text primary key,
        org_id text not null,
        association_id text not null,
        association_type text not null,
        fs_type text not null check (fs_type in ('file', 'directory')),
        parent_id text,
        name text not null,
        relative_path text not null,
        status text not null check (status in ('pending', 'available')),
        size bigint not null default 0,
        uri text,
        version bigint not null default 1,
        description text,
        device_id text,
        metadata jsonb not null default '{}',
        tags text[] not null default '{}',
        ingestion_status text not null default 'not_ingested',
        origination text not null default '',
        storage_type text not null default 'uploaded',
        upload_id text not null default 'NO_ID',
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null
      );
      create unique index fs_nodes_path_idx on fs_nodes (association_id, relative_path) where status = 'available';
      create index fs_nodes_parent_idx on fs_nodes (association_id, parent_id, name);
      create index fs_nodes_org_created_idx on fs_nodes (org_id, created desc, node_id desc) where status = 'available';
      create index fs_nodes_assoc_path_pattern_idx on fs_nodes (association_id, relative_path text_pattern_ops);
      create table file_versions (
        file_id text not null,
        version bigint not null,
        snapshot jsonb not null,
        primary key (file_id, version)
      );
      create table upload_transactions (
        transaction_id text primary key,
        org_id text not null,
        association_id text not null,
        association_type text not null,
        origination text not null default '',
        device_id text,
        prefix text not null,
        status text not null check (status in ('open', 'completed', 'aborted')),
        created timestamptz not null,
        created_by text not null,
        completed timestamptz
      );
      create table upload_items (
        transaction_id text not null references upload_transactions (transaction_id) on delete cascade deferrable initially deferred,
        relative_path text not null,
        size bigint not null,
        object_key text not null,
        file_id text not null,
        uploaded boolean not null default false,
        primary key (transaction_id, relative_path)
      );
      create index upload_items_file_idx on upload_items (file_id);
    `);
  }
}
