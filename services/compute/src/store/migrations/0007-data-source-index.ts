import { Migration } from "@mikro-orm/migrations";

/**
 * "One dataset's invocations, newest first" (a dataset page's invocation list, a trigger's
 * history for it): without an index PostgreSQL read every invocation of the org for each page
 * (1.2 s at 1,000,000 rows; store/query-plans.spec.ts keeps its plan honest).
 */
export class Migration0007DataSourceIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index invocations_org_source_created_idx on invocations (org_id, data_source_id, created desc, invocation_id desc);`);
  }
}
