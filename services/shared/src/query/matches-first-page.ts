import { textArrayLiteral } from "../db/array-literal";
import { estimateRows, keysetPageSql, type KeysetSearch } from "./keyset-page-rows";
import { rawSql, sql, type SqlFragment } from "./sql-fragment";

/** Runs one SQL statement and resolves its rows. */
export type ExecuteSql = (query: SqlFragment) => Promise<Record<string, unknown>[]>;

/**
 * The rows a search reads: `columns` of `table` (aliased `alias`) and what `joins` adds, those in
 * `scope` (the org and liveness filter, on `alias` only); `key` is the primary key (trusted SQL such
 * as `"f"."node_id"`, the sort's tie-breaker). The table has an index on (org, created, key).
 */
export interface SearchSource {
  readonly columns: SqlFragment;
  readonly table: string;
  readonly alias: string;
  readonly joins: string;
  readonly scope: SqlFragment;
  readonly key: string;
}

/** A page's raw rows (keysetPageSql's, one more than the limit when another page follows) and the number of matches up to the cap. */
export interface MatchesFirstPage {
  rows: Record<string, unknown>[];
  /** The number of matches when at most the cap; undefined above it or when they were not counted. */
  total: number | undefined;
}

/** Sorted by anything else, a condition expected to match this many times the cap or more is read in PostgreSQL's plan, uncounted. */
const BROAD_FACTOR = 10;

/** How many rows of the scope, in sort order, the bounded walk reads at least (and ten times the page). */
const WALK_ROWS = 20_000;

/**
 * One keyset page of `source` matching `search` (and the number of matches when at most `cap`),
 * planned so that its cost is bounded by the matches or by a fixed walk, never by the org.
 *
 * Left alone, PostgreSQL serves `ORDER BY created LIMIT n` by walking the (org, created) index and
 * filtering as it goes whenever it expects the page to fill early, which it judges from per-table
 * estimates that assume independent conditions and move with each ANALYZE sample. Conditions that
 * never meet (a file metadata value and a dataset tag that no dataset of that robot has) make that
 * walk read the whole org to prove there is no row: the saved query `metadata.robot = 'r-7' AND
 * dataset.tags CONTAINS 'outdoor'` took 171 ms or 1.7 s at a million files, by the sample.
 *
 * So, after PostgreSQL's estimate (EXPLAIN, about a millisecond): a condition expected to match
 * more than `cap` rows, sorted by `created`, is first looked for in a bounded walk, the newest
 * (or oldest) WALK_ROWS rows of the scope in page order; a full page found there is the page (any
 * earlier match would be in the window). Otherwise the matches' ids are collected, up to `cap + 1`,
 * by a statement without an order (no sort-order walk to choose: PostgreSQL reads the conditions'
 * indexes); with at most `cap` of them the page reads those rows by id and sorts only them. More
 * than `cap` matches that the walk did not meet leave the page to PostgreSQL's plan. Sorted by
 * another field (no index to walk, so PostgreSQL sorts the matches whatever it plans), a condition
 * expected to match ten times `cap` or more goes straight to PostgreSQL's plan, uncounted.
 */
export async function matchesFirstPage(execute: ExecuteSql, source: SearchSource, search: KeysetSearch, cap: number): Promise<MatchesFirstPage> {
  const from = rawSql(`${source.table} ${source.alias} ${source.joins}`);
  const where = sql`${source.scope} and (${search.where})`;
  const estimate = await estimateRows(execute, from, where);
  if (estimate > cap && sortsByCreated(source, search)) {
    const walked = await execute(boundedWalkSql(source, search));
    if (walked.length > search.limit) return { rows: walked, total: undefined };
  } else if (estimate >= BROAD_FACTOR * cap) {
    return { rows: await execute(keysetPageSql(source.columns, from, where, search)), total: undefined };
  }
  const ids = await idsUpTo(execute, from, where, source.key, cap);
  const exact = ids.length <= cap;
  const scope = exact ? sql`${rawSql(source.key)} = any(${textArrayLiteral(ids)}::text[]) and ${source.scope}` : where;
  const rows = await execute(keysetPageSql(source.columns, from, scope, search));
  return { rows, total: exact ? ids.length : undefined };
}

/** Whether the page is in (created, key) order of the source's own table, which its (org, created, key) index serves. */
function sortsByCreated(source: SearchSource, search: KeysetSearch): boolean {
  return [" ASC", " DESC"].some((dir) => search.orderBy.sql === `"${source.alias}"."created"${dir}, ${source.key}${dir}`);
}

/** The page among the first WALK_ROWS rows of the scope after the cursor, in page order (at most that many rows read). */
function boundedWalkSql(source: SearchSource, search: KeysetSearch): SqlFragment {
  const window = Math.max(WALK_ROWS, 10 * (search.limit + 1));
  const walk = sql`(select * from ${rawSql(`${source.table} ${source.alias}`)} where ${source.scope} and ${search.after} order by ${search.orderBy} limit ${window}) ${rawSql(source.alias)}`;
  return sql`select ${source.columns}, ${search.cursorColumns} from ${walk} ${rawSql(source.joins)} where (${search.where}) order by ${search.orderBy} limit ${search.limit + 1}`;
}

/** The ids of the matches if at most `cap`, else of `cap + 1` of them: stopping there bounds the work. */
async function idsUpTo(execute: ExecuteSql, from: SqlFragment, where: SqlFragment, key: string, cap: number): Promise<string[]> {
  const rows = await execute(sql`select ${rawSql(key)} as id from ${from} where ${where} limit ${cap + 1}`);
  return rows.map((r) => String(r["id"]));
}
