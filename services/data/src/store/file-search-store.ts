import { rawSql, sql, textArrayLiteral, type EntityManager, type SqlFragment } from "@hangar/shared";
import { liveAssociation } from "./deleted-associations";
import { fsNodeFromRow, type FsNodeRow } from "./file-entities";

/** A compiled search over an org's available files (see domain/file-search). */
export interface FileOrgSearch {
  where: SqlFragment;
  orderBy: SqlFragment;
  limit: number;
  offset: number;
}

/** One page of a file search. */
export interface FileSearchPage {
  rows: FsNodeRow[];
  /** Whether a match follows the page. */
  hasMore: boolean;
  /** The number of matches, or undefined when there are more than the count cap. */
  total: number | undefined;
}

// Fields under `dataset.` read the file's dataset. The join is on the dataset's primary key and
// selects nothing, so PostgreSQL drops it from the plan when the condition and sort do not use it.
const FILES = rawSql("fs_nodes f left join datasets d on d.dataset_id = f.association_id and d.org_id = f.org_id");

/** Org-wide searches over available files (query_files, count_files). */
export class FileSearchStore {
  constructor(readonly em: EntityManager) {}

  /**
   * Runs a search in the org: finds the matches' ids up to `countCap`, then reads one page (and
   * one row more, to learn whether another page follows).
   *
   * The first step also picks the page's plan. Few matches (at most the cap) are read by id and
   * only they are sorted, without evaluating the condition again. Otherwise PostgreSQL may walk a
   * sort-order index (org, created) and filter as it goes: fast when matches are many, but it reads
   * most of the table when its estimate of a jsonb or pattern condition is too high and the
   * matches are in fact few, which the first step tells apart exactly.
   */
  async search(orgId: string, search: FileOrgSearch, countCap: number): Promise<FileSearchPage> {
    const where = matching(orgId, search.where);
    const ids = await this.idsUpTo(where, countCap);
    const exact = ids.length <= countCap;
    if (exact && ids.length <= search.offset) return { rows: [], hasMore: false, total: ids.length };
    const page = exact ? pageAmong(orgId, ids, search) : pageInSortOrder(where, search);
    const rows = await this.em.execute(page.sql, [...page.params]);
    return { rows: rows.slice(0, search.limit).map(fsNodeFromRow), hasMore: rows.length > search.limit, total: exact ? ids.length : undefined };
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
  return sql`f.org_id = ${orgId} and f.status = 'available' and f.fs_type = 'file' and ${liveAssociation("f")} and (${where})`;
}

function pageInSortOrder(where: SqlFragment, search: FileOrgSearch): SqlFragment {
  return sql`select f.* from ${FILES} where ${where} order by ${search.orderBy} limit ${search.limit + 1} offset ${search.offset}`;
}

// The ids already satisfy the condition, which is not evaluated again; the org scope costs nothing to keep.
function pageAmong(orgId: string, ids: readonly string[], search: FileOrgSearch): SqlFragment {
  const scope = matching(orgId, rawSql("TRUE"));
  return sql`select f.* from ${FILES} where f.node_id = any(${textArrayLiteral(ids)}::text[]) and ${scope} order by ${search.orderBy} limit ${search.limit + 1} offset ${search.offset}`;
}

