import { platformFilesExcluded } from "./platform-files";
import {
  estimateRows,
  keysetPageRows,
  keysetPageSql,
  rawSql,
  sql,
  textArrayLiteral,
  type EntityManager,
  type KeysetSearch,
  type SqlFragment,
} from "@hangar/shared";
import type { FileSearchPage, FileSearchRepository } from "../domain/file-repositories";
import { liveAssociationProbe } from "./deleted-associations";
import { fsNodeFromRow } from "./file-entities";

// Fields under `dataset.` read the file's dataset. The join is on the dataset's primary key and
// selects nothing, so PostgreSQL drops it from the plan when the condition and sort do not use it.
const FILES = rawSql("fs_nodes f left join datasets d on d.dataset_id = f.association_id and d.org_id = f.org_id");

/** A condition the planner expects to match this many times the count cap or more is broad. */
const BROAD_FACTOR = 10;

/** The file search repository: org-wide searches over available files (query_files, count_files). */
export class FileSearchStore implements FileSearchRepository {
  constructor(readonly em: EntityManager) {}

  private readonly execute = (query: SqlFragment): Promise<Record<string, unknown>[]> => this.em.execute(query.sql, [...query.params]);

  /**
   * Runs a search in the org: one keyset page (and one row more, to learn whether another page
   * follows) and the number of matches when at most `countCap`.
   *
   * The planner's estimate comes first (EXPLAIN, about a millisecond). A broad condition (ten
   * times the cap or more) reads its page in sort order, walking a sort-order index such as (org,
   * created) and filtering as it goes, and its total is null without counting: finding the first
   * `countCap + 1` matches would cost more than the page. Otherwise the matches' ids are found up
   * to the cap: few matches are then read by id and only they are sorted, which protects against
   * a sort-order walk that reads most of the table when matches are in fact few.
   */
  async search(orgId: string, search: KeysetSearch, countCap: number): Promise<FileSearchPage> {
    const where = matching(orgId, search.where);
    const broad = (await estimateRows(this.execute, FILES, where)) >= BROAD_FACTOR * countCap;
    const ids = broad ? undefined : await this.idsUpTo(where, countCap);
    const exact = ids !== undefined && ids.length <= countCap;
    const scope = exact ? sql`f.node_id = any(${textArrayLiteral(ids)}::text[]) and ${matching(orgId, rawSql("TRUE"))}` : where;
    const rows = await this.execute(keysetPageSql(rawSql("f.*"), FILES, scope, search));
    return { ...keysetPageRows(rows, search.limit, fsNodeFromRow), total: exact ? ids.length : undefined };
  }

  /** The exact number of the org's available files matching `where`. */
  async count(orgId: string, where: SqlFragment): Promise<number> {
    const query = sql`select count(*) as total from ${FILES} where ${matching(orgId, where)}`;
    const rows = await this.em.execute<{ total: string }[]>(query.sql, [...query.params]);
    return Number(rows[0]!.total);
  }

  /** The ids of the matches if at most `cap`, else of `cap + 1` of them: stopping there bounds the work. */
  private async idsUpTo(where: SqlFragment, cap: number): Promise<string[]> {
    const query = sql`select f.node_id from ${FILES} where ${where} limit ${cap + 1}`;
    const rows = await this.em.execute<{ node_id: string }[]>(query.sql, [...query.params]);
    return rows.map((r) => r.node_id);
  }
}

function matching(orgId: string, where: SqlFragment): SqlFragment {
  return sql`f.org_id = ${orgId} and f.status = 'available' and f.fs_type = 'file' and ${liveAssociationProbe("f")} and ${platformFilesExcluded("f.relative_path")} and (${where})`;
}
