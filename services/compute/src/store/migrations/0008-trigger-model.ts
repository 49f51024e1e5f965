import { Migration } from "@mikro-orm/migrations";

/**
 * The 0.62 trigger model over the same `triggers` table: a v2 trigger keeps its source and targets
 * as JSON (its legacy columns hold empty values, and legacy listings skip it), a schedule trigger
 * its next due tick (the scheduler's claim queue). `trigger_dispatches` records what each trigger
 * fired; its unique (trigger, idempotency token, target) key makes every firing happen once,
 * whichever replica or redelivered event gets there first.
 */
export class Migration0008TriggerModel extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table triggers
        add column engine text not null default 'v1',
        add column fires_on jsonb,
        add column targets jsonb,
        add column managed_by jsonb,
        add column next_fire_at timestamptz;
      create index triggers_due_idx on triggers (next_fire_at) where next_fire_at is not null;
      create index triggers_v2_org_idx on triggers (org_id) where engine = 'v2';
      create table trigger_dispatches (
        dispatch_id bigserial primary key,
        trigger_id text not null references triggers (trigger_id) on delete cascade,
        org_id text not null,
        idempotency_token text not null,
        target_id text not null,
        target_type text not null,
        event_type text not null,
        event_id text not null,
        subject text not null,
        dataset_id text,
        status text not null,
        status_detail text,
        result_ref text,
        claimed_at timestamptz not null,
        finalized_at timestamptz,
        unique (trigger_id, idempotency_token, target_id)
      );
      create index trigger_dispatches_trigger_idx on trigger_dispatches (trigger_id, dispatch_id desc);
    `);
  }
}
