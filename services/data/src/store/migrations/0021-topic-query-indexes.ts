import { Migration } from "@mikro-orm/migrations";

/**
 * Topic searches by name, by schema, and by both over a whole org (saved queries on the `topics`
 * target, newest first by default). Without these, `topic_name = '/imu'` read every topic of the
 * org with that name (or all of them) and sorted the matches before the page's 100
 * (store/query-plans.spec.ts). Each index hands its matches over in the default order (created,
 * then topic_id, both descending), so a page reads its own rows and a deep page starts at its
 * keyset position; name and schema together need their own, as one of the others would read every
 * topic of the name to keep those of the schema.
 */
export class Migration0021TopicQueryIndexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index topics_org_name_created_idx on topics (org_id, topic_name, created desc, topic_id desc);
      create index topics_org_schema_created_idx on topics (org_id, schema_name, created desc, topic_id desc);
      create index topics_org_name_schema_created_idx on topics (org_id, topic_name, schema_name, created desc, topic_id desc);
    `);
  }
}
