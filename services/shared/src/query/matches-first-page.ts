import { textArrayLiteral } from "../db/array-literal";
import { isFirstPage } from "./keyset-order";
import { BROAD_FACTOR, estimateRows, keysetPageSql, type ExecuteSql, type KeysetSearch } from "./keyset-page-rows";
import { rawSql, sql, type SqlFragment } from "./sql-fragment";

/**
 * The rows a search reads: `columns` of `table` (aliased `alias`) and what `joins` adds, those in
 * `scope` (the org and liveness filter, on `alias` only); `key` is the primary key (trusted SQL such
 * as `"f"."node_id"`, the sort's tie-breaker); `walkIndex` is the table's index on (org, created, key).
 */
export interface SearchSource {
  readonly columns: SqlFragment;
  readonly table: string;
  readonly alias: string;
  readonly joins: string;
  readonly scope: SqlFragment;
  readonly key: string;
  readonly walkIndex: string;
}

/** A page's raw rows (keysetPageSql's, one more than the limit when another page follows) and the number of matches up to the cap. */
export interface MatchesFirstPage {
  rows: Record<string, unknown>[];
  /** The number of matches when at most the cap; undefined above it or when they were not counted. */
  total: number | undefined;
}

/** How many rows of the scope, in sort order, the bounded walk reads at least (and ten times the page). */
export const WALK_ROWS = 20_000;

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
 * So PostgreSQL's plan for the page is read first (EXPLAIN, about a millisecond). When it walks the
 * (org, created) index in order, filtering as it goes, the page is first looked for in a bounded
 * walk: the WALK_ROWS rows of the scope after the cursor in page order; a full page found there is
 * the page (any earlier match would be in the window), and with `counted` its matches are counted
 * up to the cap unless the page's rows already outnumber it or PostgreSQL expects ten times `cap` of them. Otherwise the matches' ids are collected,
 * up to `cap + 1`, by a statement without an order (no sort-order walk to choose: PostgreSQL reads
 * the conditions' indexes); with at most `cap` of them the page reads those rows by id and sorts
 * only them. More than `cap` matches are sorted whole where PostgreSQL planned the walk (the bounded
 * walk showed them to be older than its window: the old 20,000-file dataset that every newer file
 * follows: 1.8 s walked, 0.2 s sorted at a load of 7); where it planned to sort them the bounded walk is tried
 * first. A plan that sorts its matches or walks an index holding the condition (a dataset's files
 * by association, topics by name) costs what it reads: it runs as planned when it expects ten
 * times `cap` matches or more (uncounted), else after the ids are counted.
 */
export async function matchesFirstPage(
  execute: ExecuteSql,
  source: SearchSource,
  search: KeysetSearch,
  cap: number,
  options: { counted: boolean },
): Promise<MatchesFirstPage> {
  const from = rawSql(`${source.table} ${source.alias} ${source.joins}`);
  const where = sql`${source.scope} and (${search.where})`;
  const page = keysetPageSql(source.columns, from, where, search);
  const plan = await plannedPage(execute, page, source.walkIndex);
  const broad = plan.matches >= BROAD_FACTOR * cap;
  const idsOfMatches = () => idsUpTo(execute, from, where, source.key, cap);
  // The page's plan estimates the matches after the cursor only, few at the end of a walk, while
  // total_count counts them all: a later page asks for the whole condition's estimate (EXPLAIN,
  // about a millisecond; the count it saves read 1,001 ids, 3-8 ms a page at the end of a
  // million-file walk at a load of 10).
  const broadCondition = async () => broad || (!isFirstPage(search.after) && (await estimateRows(execute, from, where)) >= BROAD_FACTOR * cap);
  if (plan.walks) {
    const rows = await walked(execute, source, search);
    // The ids are counted up to the cap unless the page's own rows outnumber it or the condition is broad.
    if (rows) return { rows, total: options.counted && rows.length <= cap && !(await broadCondition()) ? exactUpTo(await idsOfMatches(), cap) : undefined };
  } else if (broad) {
    return { rows: await execute(page), total: undefined };
  }
  const ids = await idsOfMatches();
  if (ids.length <= cap) {
    const byIds = sql`${rawSql(source.key)} = any(${textArrayLiteral(ids)}::text[]) and ${source.scope}`;
    return { rows: await execute(keysetPageSql(source.columns, from, byIds, search)), total: ids.length };
  }
  // More than `cap` matches. Where PostgreSQL planned to sort them all, the bounded walk may find the
  // page first; where it planned the walk, the bounded walk found no page in its window, so the
  // matches are older than that and its walk would read the org up to them: they are sorted instead.
  if (plan.sorts) return { rows: (await walked(execute, source, search)) ?? (await execute(page)), total: undefined };
  return { rows: await execute(plan.walks && sortsByCreated(source, search) ? sortedMatchesSql(source, search) : page), total: undefined };
}

/** The page with every match found first (OFFSET 0 keeps PostgreSQL from walking the sort order) and only they sorted. */
function sortedMatchesSql(source: SearchSource, search: KeysetSearch): SqlFragment {
  const from = rawSql(`${source.table} ${source.alias} ${source.joins}`);
  const matches = sql`(select ${source.columns}, ${search.cursorColumns} from ${from} where ${source.scope} and (${search.where}) and ${search.after} offset 0) ${rawSql(source.alias)}`;
  return sql`select * from ${matches} order by ${search.orderBy} limit ${search.limit + 1}`;
}

/** The bounded walk's rows when it found a full page, else undefined. */
async function walked(execute: ExecuteSql, source: SearchSource, search: KeysetSearch): Promise<Record<string, unknown>[] | undefined> {
  const rows = sortsByCreated(source, search) ? await execute(boundedWalkSql(source, search)) : [];
  return rows.length > search.limit ? rows : undefined;
}

function exactUpTo(ids: readonly string[], cap: number): number | undefined {
  return ids.length <= cap ? ids.length : undefined;
}

/** One node of `EXPLAIN (FORMAT JSON)`, with the fields read here. */
interface PlanNode {
  "Node Type": string;
  "Plan Rows": number;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

/**
 * PostgreSQL's plan for the page (EXPLAIN, no execution; about a millisecond): the matches it
 * expects (the rows under the LIMIT), whether it walks `walkIndex` in order, filtering as it goes
 * (the walk whose length nothing bounds), and whether it sorts the matches. A plan that sorts reads the matches it sorts; one
 * that walks another index (a dataset's files by association) has the condition in its index.
 */
async function plannedPage(execute: ExecuteSql, page: SqlFragment, walkIndex: string): Promise<{ matches: number; walks: boolean; sorts: boolean }> {
  const rows = await execute(sql`explain (format json) ${page}`);
  const root = (rows[0]?.["QUERY PLAN"] as [{ Plan: PlanNode }] | undefined)?.[0]?.Plan;
  if (!root) return { matches: Number.POSITIVE_INFINITY, walks: true, sorts: false };
  const nodes: PlanNode[] = [];
  const visit = (node: PlanNode): void => void (nodes.push(node), node.Plans?.forEach(visit));
  visit(root);
  const sorts = nodes.some((n) => n["Node Type"].includes("Sort"));
  return { matches: root.Plans?.[0]?.["Plan Rows"] ?? root["Plan Rows"], walks: !sorts && nodes.some((n) => n["Index Name"] === walkIndex), sorts };
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
