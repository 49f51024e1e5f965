import { Migration } from "@mikro-orm/migrations";

/**
 * Evaluations are unique per trigger and occasion (an upload's transaction, or a dataset-change
 * event), no longer per transaction alone, since a change to a dataset's fields starts them too.
 */
export class Migration0004EvaluationOccasions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table trigger_evaluations add column occasion_id text;
      update trigger_evaluations set occasion_id = transaction_id where transaction_id is not null;
      drop index trigger_evaluations_upload_idx;
      create unique index trigger_evaluations_occasion_idx on trigger_evaluations (trigger_id, occasion_id) where occasion_id is not null;
    `);
  }
}
