import { cursorOfRow, isFirstPage } from "./keyset-order";
import type { PageCursor } from "./page-token";
import { joinSql, rawSql, sql, type SqlFragment } from "./sql-fragment";

/** The parts of a SearchPlan a store needs to read one keyset page. */
export interface KeysetSearch {
  readonly where: SqlFragment;
  readonly orderBy: SqlFragment;
  readonly after: SqlFragment;
  readonly cursorColumns: SqlFragment;
  readonly limit: number;
}

/**
 * One page as a store returns it: the rows, whether more follow, and each row's cursor. A handler
 * that keeps only the leading rows that fit the response (fitPage) builds the next token from the
 * cursor of the last row it KEPT, `cursors[kept - 1]`, and more follow when it left one out:
 * `plan.nextToken(cursors[items.length - 1], hasMore || items.length < rows.length)`.
 */
export interface KeysetPageRows<T> {
  rows: T[];
  hasMore: boolean;
  /** The cursor of each row of `rows`, in the same order. */
  cursors: PageCursor[];
}

/**
 * The query of one keyset page: `select <columns>, <cursor columns> from <from> where <where> and
 * <after> order by ... limit <limit + 1>` (the extra row tells whether another page follows).
 */
export function keysetPageSql(columns: SqlFragment, from: SqlFragment, where: SqlFragment, search: KeysetSearch): SqlFragment {
  return sql`select ${columns}, ${search.cursorColumns} from ${from} where (${where}) and ${search.after} order by ${search.orderBy} limit ${search.limit + 1}`;
}

/**
 * One keyset page read range by range: `page(range)` is the page's query over one of a cursor's
 * `afterRanges` (ordered, limited to `limit + 1`). With two ranges (a nullable key: the later keys,
 * then the nulls) each is read as its own index range and the first `limit + 1` rows of both kept,
 * where their OR would make PostgreSQL read the index from its start and filter up to the cursor.
 * `orderBy` names its columns by `alias`.
 */
export function keysetRangesSql(ranges: readonly SqlFragment[], page: (after: SqlFragment) => SqlFragment, orderBy: SqlFragment, alias: string, limit: number): SqlFragment {
  if (ranges.length === 1) return page(ranges[0]!);
  const union = joinSql(ranges.map((range) => sql`(${page(range)})`), " union all ");
  return sql`select * from (${union}) ${rawSql(alias)} order by ${orderBy} limit ${limit + 1}`;
}

/** Splits the rows of `keysetPageSql` into the page (mapped), whether more follow and each row's cursor. */
export function keysetPageRows<T>(raw: readonly Record<string, unknown>[], limit: number, map: (row: Record<string, unknown>) => T): KeysetPageRows<T> {
  const page = raw.slice(0, limit);
  return { rows: page.map(map), hasMore: raw.length > limit, cursors: page.map(cursorOfRow) };
}

/** How many matches a count reports exactly; above it, total_count is null (the spec allows null). */
export const COUNT_CAP = 1000;

/** Matches PostgreSQL expects at this many times the cap or more are taken as above it, uncounted. */
export const BROAD_FACTOR = 10;

/** Runs one SQL statement and resolves its rows. */
export type ExecuteSql = (query: SqlFragment) => Promise<Record<string, unknown>[]>;

/**
 * One keyset page of `from` matching `where` (keysetPageSql's raw rows) and total_count: the number
 * of matches when at most `cap`, else undefined, at the least cost the page allows. The capped count
 * reads up to 1,001 rows, often as many as the page (issue 11), so it is skipped where something
 * cheaper decides:
 * - a page of at least `cap` rows decides for itself: more rows than `cap` (one more than its
 *   limit) show that the matches outnumber it, and a first page that is not full holds every match
 *   (every page of the SDK's default size, 1,000, but the last of a walk, which is counted);
 * - a first page that is not full holds every match, whatever its size: a smaller first page runs
 *   alone and is counted only when full (a client polling for one record, as a waiting uploader
 *   asks for its invocation, reads one statement where it read three: 720 of 8,100 statements of
 *   bench:compute's 16-upload burst);
 * - a later page runs beside the count, so the count adds no latency;
 * - the count first reads PostgreSQL's estimate (EXPLAIN, about a millisecond) and is skipped when
 *   that expects BROAD_FACTOR times `cap` or more: null is allowed past the cap, and an exact
 *   count is never guessed.
 */
export async function keysetPageWithTotal(
  execute: ExecuteSql,
  columns: SqlFragment,
  from: SqlFragment,
  where: SqlFragment,
  search: KeysetSearch,
  cap = COUNT_CAP,
): Promise<{ rows: Record<string, unknown>[]; total: number | undefined }> {
  const page = keysetPageSql(columns, from, where, search);
  const count = () => countUnlessBroad(execute, from, where, search.orderBy, cap);
  if (search.limit >= cap || isFirstPage(search.after)) {
    const rows = await execute(page);
    if (rows.length > cap) return { rows, total: undefined };
    return { rows, total: isFirstPage(search.after) && rows.length <= search.limit ? rows.length : await count() };
  }
  const [rows, total] = await Promise.all([execute(page), count()]);
  return { rows, total };
}

/** countUpTo, unless PostgreSQL expects BROAD_FACTOR times `cap` matches or more (then undefined, uncounted). */
async function countUnlessBroad(execute: ExecuteSql, from: SqlFragment, where: SqlFragment, orderBy: SqlFragment, cap: number): Promise<number | undefined> {
  if ((await estimateRows(execute, from, where)) >= BROAD_FACTOR * cap) return undefined;
  return countUpTo(execute, from, where, orderBy, cap);
}

/**
 * A count that costs at most `cap + 1` rows: the matches of `where` over `from` when there are at
 * most `cap`, else undefined. Counting every match of a broad condition reads all of them (hundreds
 * of milliseconds at a million rows), many times the cost of a page; a caller needing the exact
 * number has a count operation.
 *
 * The rows are taken in the page's order (`orderBy`), so the count walks the index that serves the
 * page. Without it PostgreSQL may pick a sequential scan expecting matches spread evenly; rows
 * written together (one upload's files) sit together, and it then reads most of the table first.
 */
export async function countUpTo(execute: ExecuteSql, from: SqlFragment, where: SqlFragment, orderBy: SqlFragment, cap = COUNT_CAP): Promise<number | undefined> {
  const rows = await execute(sql`select count(*) as n from (select 1 from ${from} where ${where} order by ${orderBy} limit ${cap + 1}) capped`);
  const n = Number(rows[0]?.["n"] ?? 0);
  return n > cap ? undefined : n;
}

/**
 * PostgreSQL's estimate of how many rows of `from` match `where` (EXPLAIN, no execution): the
 * cheap bound that tells a broad condition, whose exact count is not worth reading, from a narrow one.
 */
export async function estimateRows(execute: ExecuteSql, from: SqlFragment, where: SqlFragment): Promise<number> {
  const rows = await execute(sql`explain (format json) select 1 from ${from} where ${where}`);
  const plan = rows[0]?.["QUERY PLAN"] as [{ Plan: { "Plan Rows": number } }] | undefined;
  return plan?.[0]?.Plan["Plan Rows"] ?? Number.POSITIVE_INFINITY;
}
