import type { EntityManager } from "../db";
import { rawSql, sql, type SqlFragment } from "./sql-fragment";

/** What a listing keyed on an identity column reads: `select ... from ... where ...`, keyed on `seq` (trusted SQL). */
export interface ListingQuery {
  select: SqlFragment;
  from: SqlFragment;
  where: SqlFragment;
  seq: string;
}

/** A newest-first page: at most `limit` rows whose key is below `before` (from the top when undefined). */
export interface ListedRange {
  limit: number;
  before: number | undefined;
}

/** An oldest-first page: at most `limit` rows whose key is above `after` (from the start when undefined). */
export interface OldestFirstRange {
  limit: number;
  after: number | undefined;
}

/** One page of a listing: the rows with their keys, whether more follow, and how many match in all. */
export interface ListedPage<T> {
  rows: T[];
  /** Each row's key, in order, so a page cut short (see fitPage) can continue after any row. */
  keys: number[];
  hasMore: boolean;
  total: number;
}

/**
 * Reads one page of a listing keyed on an identity column, in the direction the range names, with
 * the count of every matching row (the two queries run at once). A deep page costs what the first
 * does: the key bounds the scan, no offset is skipped.
 */
export async function listedPage<T>(em: EntityManager, query: ListingQuery, range: ListedRange | OldestFirstRange, map: (row: Record<string, unknown>) => T): Promise<ListedPage<T>> {
  const seq = rawSql(query.seq);
  const oldestFirst = "after" in range;
  const cursor = oldestFirst ? range.after : range.before;
  const past = cursor === undefined ? rawSql("true") : oldestFirst ? sql`${seq} > ${cursor}` : sql`${seq} < ${cursor}`;
  const order = rawSql(oldestFirst ? "asc" : "desc");
  const list = sql`select ${query.select}, ${seq} as listing_key from ${query.from} where (${query.where}) and ${past} order by ${seq} ${order} limit ${range.limit + 1}`;
  const count = sql`select count(*) as total from ${query.from} where ${query.where}`;
  const [rows, counts] = await Promise.all([em.execute(list.sql, [...list.params]), em.execute<{ total: string }[]>(count.sql, [...count.params])]);
  const served = rows.slice(0, range.limit);
  return { rows: served.map(map), keys: served.map((row) => Number(row.listing_key)), hasMore: rows.length > range.limit, total: Number(counts[0]!.total) };
}
