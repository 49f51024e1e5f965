import { Migration } from "@mikro-orm/migrations";

/**
 * Collections: the current state in `collections` (one row per collection, flat columns and
 * jsonb like `datasets`, so the query engine and a search target read it as they read datasets),
 * membership as version ranges (a member belongs to versions `added_version` up to, not including,
 * `removed_version`), one row per version with the scalar fields as they were and the change that
 * made it, and permission tuples as `dataset_relations` keeps them.
 */
export class Migration0016Collections extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table collections (
        collection_id text primary key,
        org_id text not null,
        name text,
        description text,
        resource_type text not null,
        tags text[] not null default '{}',
        custom_fields jsonb not null default '{}',
        resource_count integer not null default 0,
        version integer not null default 0,
        created timestamptz not null,
        created_by text not null,
        updated timestamptz not null,
        updated_by text not null
      );
      create index collections_org_created_idx on collections (org_id, created desc, collection_id desc);
      create index collections_tags_idx on collections using gin (tags);
      create table collection_members (
        collection_id text not null references collections (collection_id) on delete cascade deferrable initially deferred,
        resource_type text not null,
        resource_id text not null,
        resource_version text,
        added_version integer not null,
        removed_version integer,
        -- Members read back in the order they were added.
        position bigint generated always as identity,
        primary key (collection_id, resource_type, resource_id, added_version)
      );
      create unique index collection_members_current_idx on collection_members (collection_id, resource_type, resource_id) where removed_version is null;
      create table collection_versions (
        collection_id text not null references collections (collection_id) on delete cascade deferrable initially deferred,
        version integer not null,
        name text,
        description text,
        tags text[] not null,
        custom_fields jsonb not null,
        resource_count integer not null,
        applied timestamptz not null,
        applied_by text not null,
        change_set jsonb,
        primary key (collection_id, version)
      );
      create table collection_relations (
        collection_id text not null references collections (collection_id) on delete cascade deferrable initially deferred,
        subject text not null,
        relation text not null,
        primary key (collection_id, subject, relation)
      );
    `);
  }
}
