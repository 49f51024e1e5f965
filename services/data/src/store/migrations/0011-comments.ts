import { Migration } from "@mikro-orm/migrations";

/**
 * Comments on the entities of an org (issue 14). The `seq` identity column orders listings (by
 * entity, by entity type, by author, the org's recent ones) and is what their page tokens carry;
 * each listing has an index that serves it in key order.
 */
export class Migration0011Comments extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table comments (
        comment_id text primary key,
        org_id text not null,
        entity_type text not null,
        entity_id text not null,
        comment_text text not null,
        mentions text[] not null default '{}',
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        seq bigint generated always as identity
      );
      create index comments_entity_idx on comments (org_id, entity_type, entity_id, seq);
      create index comments_type_idx on comments (org_id, entity_type, seq);
      create index comments_author_idx on comments (org_id, created_by, seq);
      create index comments_org_idx on comments (org_id, seq);
    `);
  }
}
