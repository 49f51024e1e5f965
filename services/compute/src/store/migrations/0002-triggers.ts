import { Migration } from "@mikro-orm/migrations";

/** Triggers (unique by name in an org) and their evaluations, one per trigger and upload. */
export class Migration0002Triggers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table triggers (
        trigger_id text primary key,
        org_id text not null,
        name text not null,
        action_name text not null,
        action_owner_id text not null,
        action_digest text,
        required_inputs text[] not null,
        additional_inputs text[] not null default '{}',
        causes text[] not null,
        for_each text not null,
        enabled boolean not null,
        condition jsonb,
        compute_requirement_overrides jsonb,
        container_parameter_overrides jsonb,
        parameter_values jsonb not null default '{}',
        service_user_id text not null,
        timeout integer,
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        unique (org_id, name)
      );
      create index triggers_org_created_idx on triggers (org_id, created desc, trigger_id desc);
      create table trigger_evaluations (
        trigger_evaluation_id bigserial primary key,
        trigger_id text not null references triggers (trigger_id) on delete cascade,
        org_id text not null,
        data_source_type text not null,
        data_source_id text not null,
        transaction_id text,
        evaluation_start timestamptz not null,
        evaluation_end timestamptz,
        status text not null,
        status_detail text,
        outcome text,
        outcome_reason text,
        cause text
      );
      create unique index trigger_evaluations_upload_idx on trigger_evaluations (trigger_id, transaction_id) where transaction_id is not null;
      create index trigger_evaluations_trigger_idx on trigger_evaluations (trigger_id, trigger_evaluation_id desc);
      create index trigger_evaluations_source_idx on trigger_evaluations (org_id, data_source_id, trigger_evaluation_id desc);
    `);
  }
}
