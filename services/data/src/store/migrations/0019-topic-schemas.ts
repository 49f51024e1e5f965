import { Migration } from "@mikro-orm/migrations";

/**
 * A topic's schema is addressed by its checksum within the org (the v2 schema routes read the
 * org's first topic of a checksum): an index on that, oldest first.
 */
export class Migration0019TopicSchemas extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index topics_org_schema_idx on topics (org_id, schema_checksum, created, topic_id) where schema_checksum is not null;`);
  }
}
