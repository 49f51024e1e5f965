import { DERIVED_FILES_ROOT, PLATFORM_FILES_ROOT, rawSql, sql, type SqlFragment } from "@hangar/shared";

/**
 * Leaves out the platform's own files (PLATFORM_FILES_ROOT and below, such as the derived files of
 * the built-in ingestion) from a listing or query of `column` (trusted SQL, a node's relative path).
 * Listings and queries apply it; reads by id or path, uploads and deletions do not, so the
 * platform still writes, reads and removes them.
 */
export function platformFilesExcluded(column = "relative_path"): SqlFragment {
  const path = rawSql(column);
  return sql`(${path} <> ${PLATFORM_FILES_ROOT} and not starts_with(${path}, ${`${PLATFORM_FILES_ROOT}/`}))`;
}

/**
 * The ids of `fileIds` and of the nodes derived from them: the derived-files directory of each
 * (`<DERIVED_FILES_ROOT>/<id>` in the file's association) and its files. Deleting a file deletes
 * these with it, whichever path deletes it.
 */
export function withDerivedIdsSql(ids: string): SqlFragment {
  return sql`select node_id from fs_nodes where node_id = any(${ids}::text[])
    union all select d.node_id from fs_nodes s
      join fs_nodes dir on dir.association_id = s.association_id and dir.relative_path = ${`${DERIVED_FILES_ROOT}/`} || s.node_id
      join fs_nodes d on d.node_id = dir.node_id or (d.association_id = dir.association_id and d.parent_id = dir.node_id)
      where s.node_id = any(${ids}::text[]) and s.fs_type = 'file'`;
}
