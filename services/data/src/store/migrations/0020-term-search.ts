import { Migration } from "@mikro-orm/migrations";

/**
 * Case-insensitive search (a term query, CONTAINS on text: `ILIKE '%term%'`) through trigram GIN
 * indexes on the text fields a term is looked for in, per query target; and the newest-first
 * walks of the targets that had no `(org_id, created)` index (devices, sessions).
 * Saved queries keep the field they count (submit_spec_query's `value_counts`).
 * `fs_nodes.relative_path` has its trigram index since 0003. Each index leaves out the rows
 * without a value (ILIKE implies NOT NULL, so the planner still uses it), which keeps indexes of
 * mostly-empty columns such as descriptions small and cheap to plan with. As there, a server without pg_trgm
 * skips the trigram indexes (the queries still work, by scanning) rather than failing to start.
 */
const TRIGRAM_INDEXES: ReadonlyArray<readonly [table: string, column: string, where: string]> = [
  ["datasets", "name", ""],
  ["datasets", "description", ""],
  ["fs_nodes", "description", "status = 'available'"],
  ["topics", "topic_name", ""],
  ["topics", "schema_name", ""],
  ["message_paths", "message_path", ""],
  ["message_paths", "data_type", ""],
  ["robot_events", "name", ""],
  ["robot_events", "description", ""],
  ["collections", "name", ""],
  ["collections", "description", ""],
  ["devices", "device_id", ""],
  ["sessions", "name", ""],
  ["sessions", "description", ""],
];

export class Migration0020TermSearch extends Migration {
  override async up(): Promise<void> {
    const rows = TRIGRAM_INDEXES.map(([table, column, where]) => `(${[table, column, where].map((v) => `'${v.replace(/'/g, "''")}'`).join(", ")})`).join(",\n          ");
    this.addSql(`
      alter table saved_queries add column value_counts jsonb;
      create index devices_org_created_idx on devices (org_id, created desc, universal_device_id desc);
      create index sessions_org_created_idx on sessions (org_id, created desc, session_id desc);
      create index sessions_tags_idx on sessions using gin (tags);
      create index devices_tags_idx on devices using gin (tags);
      create index robot_events_tags_idx on robot_events using gin (tags);
      do $$
      declare
        ops text;
        spec record;
      begin
        begin
          create extension if not exists pg_trgm;
        exception when insufficient_privilege or feature_not_supported or undefined_file then
          raise notice 'pg_trgm is not available (%): no trigram indexes', sqlerrm;
        end;
        select quote_ident(n.nspname) || '.gin_trgm_ops' into ops
          from pg_opclass c join pg_namespace n on n.oid = c.opcnamespace join pg_am a on a.oid = c.opcmethod
          where c.opcname = 'gin_trgm_ops' and a.amname = 'gin' limit 1;
        if ops is null then return; end if;
        for spec in select * from (values
          ${rows}) as s(tbl, col, cond)
        loop
          execute format('create index %I on %I using gin (%I %s) where %I is not null', spec.tbl || '_' || spec.col || '_trgm_idx', spec.tbl, spec.col, ops, spec.col)
            || case when spec.cond = '' then '' else ' and ' || spec.cond end;
        end loop;
      end
      $$;
    `);
  }
}
