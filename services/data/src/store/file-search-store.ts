import { platformFilesExcluded } from "./platform-files";
import { keysetPageRows, matchesFirstPage, rawSql, sql, type EntityManager, type KeysetSearch, type SqlFragment } from "@hangar/shared";
import type { FileSearchPage, FileSearchRepository } from "../domain/file-repositories";
import { liveAssociationProbe } from "./deleted-associations";
import { fsNodeFromRow } from "./file-entities";

// Fields under `dataset.` read the file's dataset. The join is on the dataset's primary key and
// selects nothing, so PostgreSQL drops it from the plan when the condition and sort do not use it.
const DATASET_JOIN = "left join datasets d on d.dataset_id = f.association_id and d.org_id = f.org_id";
const FILES = rawSql(`fs_nodes f ${DATASET_JOIN}`);

/** The file search repository: org-wide searches over available files (query_files, count_files). */
export class FileSearchStore implements FileSearchRepository {
  constructor(readonly em: EntityManager) {}

  private readonly execute = (query: SqlFragment): Promise<Record<string, unknown>[]> => this.em.execute(query.sql, [...query.params]);

  /**
   * Runs a search in the org: one keyset page (and one row more, to learn whether another page
   * follows) and the number of matches when at most `countCap`, planned by the shared engine's
   * matchesFirstPage: a bounded walk in `created` order where PostgreSQL would walk the org filtering,
   * else (or when the walk found no full page) the matches' ids first, up to the cap, and only they
   * sorted; a broad condition whose plan sorts or uses a matching index runs as planned, uncounted.
   */
  async search(orgId: string, search: KeysetSearch, countCap: number): Promise<FileSearchPage> {
    const source = {
      columns: rawSql("f.*"),
      table: "fs_nodes",
      alias: "f",
      joins: DATASET_JOIN,
      scope: matching(orgId, rawSql("TRUE")), key: `"f"."node_id"`,
      walkIndex: "fs_nodes_org_created_idx",
    };
    const { rows, total } = await matchesFirstPage(this.execute, source, search, countCap, { counted: true });
    return { ...keysetPageRows(rows, search.limit, fsNodeFromRow), total };
  }

  /** The exact number of the org's available files matching `where`. */
  async count(orgId: string, where: SqlFragment): Promise<number> {
    const query = sql`select count(*) as total from ${FILES} where ${matching(orgId, where)}`;
    const rows = await this.em.execute<{ total: string }[]>(query.sql, [...query.params]);
    return Number(rows[0]!.total);
  }
}

function matching(orgId: string, where: SqlFragment): SqlFragment {
  return sql`f.org_id = ${orgId} and f.status = 'available' and f.fs_type = 'file' and ${liveAssociationProbe("f")} and ${platformFilesExcluded("f.relative_path")} and (${where})`;
}
