import { Migration } from "@mikro-orm/migrations";

/**
 * The org's auto-ingesting ingestion rules' path patterns as PostgreSQL regular expressions
 * (`rules`: `[{include: [...], exclude: [...]}]`), kept here by the compute service, which owns the
 * rules: a rename, move or import recomputes its files' `ingestable` in its own transaction from
 * them. `as_of` is when the compute service read the rules; an older reading never replaces a newer.
 * An org without a row has not had its rules sent yet: its files keep what their uploads marked.
 */
export class Migration0024IngestionPathRules extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table ingestion_path_rules (org_id text primary key, rules jsonb not null, as_of timestamptz not null);");
  }
}
