/**
 * The SQL of FileRecord `ingestable` by the org's ingestion rules (`ingestion_path_rules`, the
 * compute service's rules as regular expressions): one matcher for every statement that changes a
 * file's path, so each recomputes in the statement (or the query) it already makes, never per file.
 */

/** Whether `path` (an SQL expression) matches a rule of the `ingestion_path_rules` row `rules`: an include pattern and no exclude pattern. */
export function matchesRuleSql(rules: string, path: string): string {
  return `exists (select 1 from jsonb_array_elements(${rules}.rules) rule
    where exists (select 1 from jsonb_array_elements_text(rule->'include') pattern where ${path} ~ pattern)
      and not exists (select 1 from jsonb_array_elements_text(rule->'exclude') pattern where ${path} ~ pattern))`;
}

/**
 * The `ingestable_version` of the fs_nodes row `node` once its path is `path`: its version when it
 * is a dataset file a rule matches, else null; what it was when the org's rules have not been sent
 * (the compute service's marks at upload stand).
 */
export function ingestableVersionSql(node: string, path: string): string {
  return `(select case when r.org_id is null then ${node}.ingestable_version
      when ${node}.fs_type = 'file' and ${node}.association_type = 'dataset' and ${matchesRuleSql("r", path)} then ${node}.version end
    from (select 1) one left join ingestion_path_rules r on r.org_id = ${node}.org_id)`;
}
