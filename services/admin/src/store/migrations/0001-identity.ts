import { Migration } from "@mikro-orm/migrations";

/**
 * Orgs, users, memberships, API tokens and usage counters. Foreign keys are checked at commit
 * (deferred) because the ORM's unit of work does not order inserts of unrelated entity schemas.
 */
export class Migration0001Identity extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table orgs (
        org_id text primary key,
        name text not null,
        tier text not null default 'free',
        status text not null,
        created timestamptz not null,
        created_by text not null
      );
      create table users (
        user_id text primary key,
        name text,
        is_service_user boolean not null default false,
        is_system_admin boolean not null default false,
        created timestamptz not null,
        created_by text not null
      );
      create table memberships (
        org_id text not null references orgs (org_id) on delete cascade deferrable initially deferred,
        user_id text not null references users (user_id) on delete cascade deferrable initially deferred,
        roles text[] not null,
        created timestamptz not null,
        primary key (org_id, user_id)
      );
      create index memberships_user_idx on memberships (user_id);
      create table api_tokens (
        token_id text primary key,
        user_id text not null references users (user_id) on delete cascade deferrable initially deferred,
        name text not null,
        description text,
        secret_hash text not null unique,
        api_scopes text[] not null default '{}',
        created timestamptz not null,
        expires timestamptz,
        last_used timestamptz,
        enabled boolean not null default true
      );
      create index api_tokens_user_idx on api_tokens (user_id);
      create table usage (
        org_id text not null,
        resource_name text not null,
        quantity bigint not null default 0,
        primary key (org_id, resource_name)
      );
    `);
  }
}
