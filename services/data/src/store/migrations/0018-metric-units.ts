import { Migration } from "@mikro-orm/migrations";

/**
 * A metric definition's unit (SDK 0.62: free-form, at most 63 characters, null for unitless).
 * Values and aggregates read it from their definition, so no value row repeats it.
 */
export class Migration0018MetricUnits extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table metric_definitions add column unit text");
  }
}
