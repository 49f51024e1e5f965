import { Migration } from "@mikro-orm/migrations";

/**
 * The version of a file an auto-ingesting ingestion rule matched when it was uploaded (the compute
 * service marks it after the upload's event), so file records say `ingestable` from their own row.
 * A later version uploads unmarked until a rule matches it too.
 */
export class Migration0022FileIngestable extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table fs_nodes add column ingestable_version bigint;");
  }
}
