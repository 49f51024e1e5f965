import { Migration } from "@mikro-orm/migrations";

/**
 * Ingestion rules. A rule with an invocation owns one managed v2 trigger (`trigger_id`; deleting
 * the rule deletes it, and a trigger deleted underneath clears the link); a rule run is a dispatch
 * of that trigger, so the runs of a file are its dispatches by subject, newest first (the index
 * answers latest_runs for 200 files in one statement). Names are unique in an org: the defaults
 * are recognised by name. An org given the default rules is recorded, so that deleting one
 * does not bring it back.
 */
export class Migration0009IngestionRules extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table ingestion_rules (
        rule_id text primary key,
        org_id text not null,
        name text not null,
        description text,
        include_patterns text[] not null,
        exclude_patterns text[] not null default '{}',
        invocation jsonb,
        auto_ingest boolean not null,
        trigger_id text references triggers (trigger_id) on delete set null,
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        unique (org_id, name)
      );
      create index ingestion_rules_org_idx on ingestion_rules (org_id, created, rule_id);
      create index ingestion_rules_trigger_idx on ingestion_rules (trigger_id);
      create table ingestion_rule_seeded_orgs (
        org_id text primary key,
        seeded timestamptz not null
      );
      create index trigger_dispatches_subject_idx on trigger_dispatches (subject, dispatch_id desc);
    `);
  }
}
