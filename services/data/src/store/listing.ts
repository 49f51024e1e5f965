import { rawSql, sql, type EntityManager, type SqlFragment } from "@hangar/shared";
import type { ListedPage, ListedRange } from "../domain/devices";

/** What a newest-first listing reads: `select ... from ... where ...`, keyed on an identity column (`seq`, trusted SQL). */
export interface ListingQuery {
  select: SqlFragment;
  from: SqlFragment;
  where: SqlFragment;
  seq: string;
}

/**
 * One page of a newest-first listing keyed on an identity column: at most `limit` rows below the
 * key `before`, whether more follow, and how many rows match in all (two queries at once).
 */
export async function listedPage<T>(em: EntityManager, query: ListingQuery, range: ListedRange, map: (row: Record<string, unknown>) => T): Promise<ListedPage<T>> {
  const seq = rawSql(query.seq);
  const below = range.before === undefined ? rawSql("true") : sql`${seq} < ${range.before}`;
  const list = sql`select ${query.select}, ${seq} as listing_key from ${query.from} where (${query.where}) and ${below} order by ${seq} desc limit ${range.limit + 1}`;
  const count = sql`select count(*) as total from ${query.from} where ${query.where}`;
  const [rows, counts] = await Promise.all([em.execute(list.sql, [...list.params]), em.execute<{ total: string }[]>(count.sql, [...count.params])]);
  const served = rows.slice(0, range.limit);
  return { rows: served.map(map), keys: served.map((row) => Number(row.listing_key)), hasMore: rows.length > range.limit, total: Number(counts[0]!.total) };
}
