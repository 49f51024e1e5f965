import { Migration } from "@mikro-orm/migrations";

/** Actions with every digest they have had, invocations with their runner lease, and invocation logs. */
export class Migration0001ActionsInvocations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table actions (
        org_id text not null,
        name text not null,
        accessibility text not null default 'organization',
        definition jsonb not null,
        digest text not null,
        metadata jsonb not null default '{}',
        tags text[] not null default '{}',
        published timestamptz,
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        primary key (org_id, name)
      );
      create index actions_org_created_idx on actions (org_id, created desc, name);
      create index actions_hub_idx on actions (created desc, org_id, name) where accessibility = 'action_hub';
      create index actions_metadata_idx on actions using gin (metadata jsonb_path_ops);
      create table action_versions (
        org_id text not null,
        name text not null,
        digest text not null,
        definition jsonb not null,
        created timestamptz not null,
        primary key (org_id, name, digest),
        foreign key (org_id, name) references actions (org_id, name) on delete cascade
      );
      create table invocations (
        invocation_id text primary key,
        org_id text not null,
        action_org_id text not null,
        action_name text not null,
        action_digest text not null,
        data_source_type text not null,
        data_source_id text not null,
        input_data text[] not null default '{}',
        rich_input_data jsonb,
        upload_destination jsonb,
        idempotency_id text,
        compute_requirements jsonb not null,
        container_parameters jsonb not null,
        parameter_values jsonb not null default '{}',
        source_type text not null,
        source_id text not null,
        created_by text not null,
        container_image_uri text,
        container_image_digest text,
        timeout integer not null,
        last_status integer not null,
        status_history jsonb not null,
        last_heartbeat timestamptz,
        created timestamptz not null,
        finished timestamptz,
        started timestamptz,
        lease_id text,
        lease_runner text,
        lease_expires timestamptz,
        attempts integer not null default 0
      );
      create unique index invocations_idempotency_idx on invocations (org_id, idempotency_id) where idempotency_id is not null;
      create index invocations_org_created_idx on invocations (org_id, created desc, invocation_id desc);
      create index invocations_queue_idx on invocations (created, invocation_id) where last_status = 0;
      create index invocations_active_idx on invocations (org_id, last_status) where finished is null;
      create index invocations_lease_idx on invocations (lease_expires) where lease_id is not null;
      create index invocations_action_idx on invocations (action_org_id, action_name, created);
      create index invocations_source_idx on invocations (source_type, source_id);
      create table invocation_logs (
        seq bigserial primary key,
        invocation_id text not null references invocations (invocation_id) on delete cascade,
        process text not null,
        log text not null,
        partial_id text,
        timestamp timestamptz not null
      );
      create index invocation_logs_invocation_idx on invocation_logs (invocation_id, seq);
    `);
  }
}
