import { Migration } from "@mikro-orm/migrations";

/**
 * Topic searches by name or schema over a whole org (saved queries on the `topics` target, newest
 * first by default). Without these, `topic_name = '/imu'` read every topic of the org and sorted the
 * matches: with a million topics, hundreds of milliseconds a page (bench/topics.mjs). Each index
 * hands the matches over in the default order (created, then topic_id, both descending), so a page
 * reads its own rows and a deep page starts at its keyset position.
 */
export class Migration0018TopicQueryIndexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index topics_org_name_created_idx on topics (org_id, topic_name, created desc, topic_id desc);
      create index topics_org_schema_created_idx on topics (org_id, schema_name, created desc, topic_id desc);
    `);
  }
}
