import { Migration } from "@mikro-orm/migrations";

/**
 * Who last named a trigger's service user: evaluation re-checks that this user may still have the
 * trigger run as the service user (issue 9). Existing triggers were named by their creators.
 */
export class Migration0005TriggerServiceUserGrantor extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table triggers add column service_user_granted_by text;
      update triggers set service_user_granted_by = created_by;
      alter table triggers alter column service_user_granted_by set not null;
    `);
  }
}
