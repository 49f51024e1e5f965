import { Migration } from "@mikro-orm/migrations";

/**
 * Indexes for the invocation searches clients page through most: an action's invocations and
 * those in one status, newest first, within an org (test/e2e/query-plans.e2e.ts keeps their plans
 * honest). Without them PostgreSQL walks (org, created) and filters out every other action's rows.
 */
export class Migration0006PagingIndexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index invocations_org_action_created_idx on invocations (org_id, action_name, created desc, invocation_id desc);
      create index invocations_org_status_created_idx on invocations (org_id, last_status, created desc, invocation_id desc);
    `);
  }
}
