import { Migration } from "@mikro-orm/migrations";

/**
 * Indexes for the org-wide file search (query_files, count_files) at a million files. The org's
 * newest-first walk is served by fs_nodes_org_created_idx (0002); these find the matches of
 * conditions that walk would have to read most of the table for:
 * - metadata equality, which the search compiles to jsonb containment (`@>`, jsonb_path_ops);
 * - tag membership (`tags @> ARRAY[...]`);
 * - `relative_path` LIKE / CONTAINS / BEGINS_WITH with a leading wildcard, through trigrams.
 *
 * pg_trgm ships with PostgreSQL's contrib and is a trusted extension, but a server may lack it or
 * the role may not be allowed to create it: then the trigram index is skipped (path patterns
 * still work, by scanning) rather than failing the service's start. When the extension already
 * exists in another schema, its operator class is used from there.
 */
export class Migration0003FileSearch extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index fs_nodes_metadata_idx on fs_nodes using gin (metadata jsonb_path_ops) where status = 'available';
      create index fs_nodes_tags_idx on fs_nodes using gin (tags) where status = 'available';
      do $$
      declare
        ops text;
      begin
        begin
          create extension if not exists pg_trgm;
        exception when insufficient_privilege or feature_not_supported or undefined_file then
          raise notice 'pg_trgm is not available (%): fs_nodes_path_trgm_idx is not created', sqlerrm;
        end;
        select quote_ident(n.nspname) || '.gin_trgm_ops' into ops
          from pg_opclass c
          join pg_namespace n on n.oid = c.opcnamespace
          join pg_am a on a.oid = c.opcmethod
          where c.opcname = 'gin_trgm_ops' and a.amname = 'gin'
          limit 1;
        if ops is not null then
          execute format('create index fs_nodes_path_trgm_idx on fs_nodes using gin (relative_path %s) where status = %L', ops, 'available');
        end if;
      end
      $$;
    `);
  }
}
