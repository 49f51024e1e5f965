import { Migration } from "@mikro-orm/migrations";

/**
 * A dispatch claimed but never finished (its replica crashed between claim and run) is retried once
 * its claim is older than the dispatch lease: the partial index is that sweep's queue. An event's
 * dispatch keeps the namespace its targets render from (the event's records), since the event
 * itself is gone by then; a schedule tick's is rebuilt from its event id.
 */
export class Migration0010DispatchLeases extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table trigger_dispatches add column namespace jsonb;
      create index trigger_dispatches_claimed_idx on trigger_dispatches (claimed_at) where status = 'claimed';
    `);
  }
}
