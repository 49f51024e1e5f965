import { Migration } from "@mikro-orm/migrations";

/** Datasets and their permission tuples, indexed for org-scoped search. */
export class Migration0001Datasets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table datasets (
        dataset_id text primary key,
        org_id text not null,
        name text,
        description text,
        device_id text,
        metadata jsonb not null default '{}',
        custom_fields jsonb not null default '{}',
        tags text[] not null default '{}',
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        service_record_version integer not null default 1
      );
      create index datasets_org_created_idx on datasets (org_id, created desc, dataset_id desc);
      create index datasets_org_name_idx on datasets (org_id, name);
      create index datasets_metadata_idx on datasets using gin (metadata jsonb_path_ops);
      create index datasets_tags_idx on datasets using gin (tags);
      create table dataset_relations (
        dataset_id text not null references datasets (dataset_id) on delete cascade deferrable initially deferred,
        subject text not null,
        relation text not null,
        primary key (dataset_id, subject, relation)
      );
    `);
  }
}
