import { Migration } from "@mikro-orm/migrations";

/**
 * The orgs whose ingestion rules' path patterns the data service may not have: every org with a
 * rule when this migration ran. Rules written before the data service kept patterns (data
 * migration 0024) were never sent, so its files kept their upload-time `ingestable` marks until the
 * next rule change. The compute service sends each listed org's patterns once after start and
 * removes its row (`resendRulePaths`); a later change sends them itself.
 */
export class Migration0011RulePathsResend extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table rule_paths_resend (org_id text primary key);");
    this.addSql("insert into rule_paths_resend (org_id) select distinct org_id from ingestion_rules;");
  }
}
