import { Migration } from "@mikro-orm/migrations";

/**
 * Dataset summaries (rows 91-93): one per dataset, the one `set_dataset_summary` or
 * `regenerate_dataset_summary` wrote last; it goes with its dataset (foreign key, cascade).
 */
export class Migration0014Robotdata extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table dataset_summaries (
        dataset_id text primary key references datasets (dataset_id) on delete cascade,
        org_id text not null,
        summary_id text not null,
        text text not null,
        status text not null,
        created timestamptz not null,
        created_by text not null
      );
    `);
  }
}
