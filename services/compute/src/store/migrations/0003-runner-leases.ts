import { Migration } from "@mikro-orm/migrations";

/**
 * Runner calls (renew, logs, status reports) find their invocation by lease id several times a
 * second per running invocation: an index keeps that a lookup rather than a scan.
 */
export class Migration0003RunnerLeases extends Migration {
  override async up(): Promise<void> {
    this.addSql("create unique index invocations_lease_id_idx on invocations (lease_id) where lease_id is not null;");
  }
}
