import {
  COUNT_CAP,
  keysetPageRows,
  matchesFirstPage,
  rawSql,
  sql,
  type EntityManager,
  type KeysetPageRows,
  type KeysetSearch,
  type SearchSource,
  type SqlFragment,
} from "@hangar/shared";
import { viewsOf } from "../domain/topic-use-cases";
import type { QueryResultRow, QueryResultsRepository } from "../domain/saved-queries";
import type { CountedField, ValueCountsResult } from "../domain/value-counts";
import { TARGETS, type QueryTargetName } from "../domain/query-targets";
import { Collection } from "./collection-entities";
import { deviceFromRow } from "./device-entities";
import { Dataset } from "./entities";
import { fsNodeFromRow } from "./file-entities";
import { liveAssociationProbe } from "./deleted-associations";
import { RobotEventStore } from "./robot-event-store";
import { RobotEvent, Session } from "./session-entities";
import { pathFromRow, TopicStore, topicFromRow } from "./topic-store";

// The file and dataset of a topic (a topic belongs to a dataset or to one of its files), joined on
// primary keys so PostgreSQL drops them from a plan whose condition and sort do not use them.
const TOPIC_OWNERS = `left join fs_nodes f on f.node_id = t.association_id
  left join datasets d on d.dataset_id = coalesce(f.association_id, t.association_id) and d.org_id = t.org_id`;

/** Per target: the rows searched (aliases as query-targets.ts's catalogs use them) and the org and liveness filter. */
const SOURCES: Readonly<Record<QueryTargetName, { table: string; alias: string; joins?: string; scope: (orgId: string) => SqlFragment }>> = {
  collections: { table: "collections", alias: "c", scope: (orgId) => sql`c.org_id = ${orgId}` },
  datasets: { table: "datasets", alias: "d", scope: (orgId) => sql`d.org_id = ${orgId}` },
  devices: { table: "devices", alias: "dv", scope: (orgId) => sql`dv.org_id = ${orgId}` },
  files: {
    table: "fs_nodes",
    alias: "f",
    joins: "left join datasets d on d.dataset_id = f.association_id and d.org_id = f.org_id",
    scope: (orgId) => sql`f.org_id = ${orgId} and f.status = 'available' and f.fs_type = 'file' and ${liveAssociationProbe("f")}`,
  },
  sessions: { table: "sessions", alias: "s", scope: (orgId) => sql`s.org_id = ${orgId}` },
  topics: { table: "topics", alias: "t", joins: TOPIC_OWNERS, scope: (orgId) => sql`t.org_id = ${orgId}` },
  topic_message_paths: { table: "message_paths", alias: "mp", joins: `join topics t on t.topic_id = mp.topic_id ${TOPIC_OWNERS}`, scope: (orgId) => sql`mp.org_id = ${orgId}` },
  events: { table: "robot_events", alias: "e", scope: (orgId) => sql`e.org_id = ${orgId}` },
};

/**
 * The rows a query of `target` reads in the org, as the shared engine's matchesFirstPage takes them
 * (also run directly by bench/search.mjs and bench/topics.mjs).
 */
export function querySource(target: QueryTargetName, orgId: string): SearchSource {
  const { table, alias, joins = "", scope } = SOURCES[target];
  // Every searchable table has its (org_id, created, key) index under this name (see the migrations).
  return { columns: rawSql(`${alias}.*`), table, alias, joins, scope: scope(orgId), key: TARGETS[target].tieBreaker, walkIndex: `${table}_org_created_idx` };
}

/** The FROM list of a query of `target`. */
function fromOf(target: QueryTargetName): SqlFragment {
  const { table, alias, joins = "" } = SOURCES[target];
  return rawSql(`${table} ${alias} ${joins}`);
}

/**
 * Reads saved queries' results: each page or count is one SQL statement whose WHERE is the
 * compiled condition (related resources as semi-joins) and the org, so nothing is filtered in Node
 * and no other org's row can match. Topics, message paths and events then load their parts by id.
 */
export class QueryResultsStore implements QueryResultsRepository {
  constructor(readonly em: EntityManager) {}

  private readonly execute = (query: SqlFragment): Promise<Record<string, unknown>[]> => this.em.execute(query.sql, [...query.params]);

  /**
   * A page of results, planned by matchesFirstPage: a query PostgreSQL expects to match broadly
   * reads its page in sort order; any other finds its matches' ids first (up to COUNT_CAP) and
   * sorts only them, so a query whose conditions never meet costs its matches, not the org.
   */
  async page(target: QueryTargetName, orgId: string, search: KeysetSearch): Promise<KeysetPageRows<QueryResultRow>> {
    const { rows } = await matchesFirstPage(this.execute, querySource(target, orgId), search, COUNT_CAP, { counted: false });
    const page = keysetPageRows(rows, search.limit, (row) => row);
    return { ...page, rows: await this.hydrate(target, page.rows) };
  }

  async count(target: QueryTargetName, orgId: string, where: SqlFragment): Promise<number> {
    const rows = await this.execute(sql`select count(*)::text as n from ${fromOf(target)} where ${SOURCES[target].scope(orgId)} and (${where})`);
    return Number(rows[0]?.["n"] ?? 0);
  }

  /**
   * One statement: the matches' values (a list field's elements, through a lateral unnest that
   * keeps a record with an empty list as one NULL), then the counts and the top `limit` values,
   * most common first and ties in ascending order, each with its earliest and latest time.
   */
  async valueCounts(target: QueryTargetName, orgId: string, where: SqlFragment, counted: CountedField, limit: number): Promise<ValueCountsResult> {
    const elements = counted.list
      ? sql` cross join lateral unnest(case when cardinality(${counted.list}) > 0 then ${counted.list} else array[null]::text[] end) as vc(element)`
      : rawSql("");
    const rows = await this.execute(sql`with m as materialized (
        select ${counted.key} as id, ${counted.value} as v, ${counted.time ?? rawSql("null::int")} as t
        from ${fromOf(target)}${elements} where ${SOURCES[target].scope(orgId)} and (${where}))
      select (select count(distinct id) from m)::text as matched,
        (select count(distinct id) from m where v is null)::text as without_value,
        (select count(distinct v) from m)::text as distinct_values,
        (select coalesce(jsonb_agg(jsonb_build_object('value', v, 'count', n, 'first_time', to_jsonb(f), 'last_time', to_jsonb(l)) order by n desc, v asc), '[]'::jsonb)
           from (select v, count(distinct id) as n, min(t) as f, max(t) as l from m where v is not null group by v order by n desc, v asc limit ${limit}) g) as vals`);
    const row = rows[0]!;
    const values = row["vals"] as { value: unknown; count: number; first_time: unknown; last_time: unknown }[];
    return {
      matched: Number(row["matched"]),
      withoutValue: Number(row["without_value"]),
      distinctValues: Number(row["distinct_values"]),
      values: values.map((v) => ({ value: v.value, count: v.count, firstTime: v.first_time, lastTime: v.last_time })),
    };
  }

  private async hydrate(target: QueryTargetName, rows: Record<string, unknown>[]): Promise<QueryResultRow[]> {
    switch (target) {
      case "collections":
        return rows.map((row) => ({ target, collection: this.em.map(Collection, row) }));
      case "datasets":
        return rows.map((row) => ({ target, dataset: this.em.map(Dataset, row) }));
      case "devices":
        return rows.map((row) => ({ target, device: deviceFromRow(row) }));
      case "files":
        return rows.map((row) => ({ target, file: fsNodeFromRow(row) }));
      case "sessions":
        return rows.map((row) => ({ target, session: this.em.map(Session, row) }));
      case "topics":
        return (await viewsOf(new TopicStore(this.em), rows.map(topicFromRow))).map((topic) => ({ target, topic }));
      case "topic_message_paths":
        return this.messagePaths(rows);
      case "events":
        return this.events(rows);
    }
  }

  private async messagePaths(rows: Record<string, unknown>[]): Promise<QueryResultRow[]> {
    const paths = rows.map(pathFromRow);
    const reps = await new TopicStore(this.em).representations([...new Set(paths.map((p) => p.topicId))]);
    return paths.map((path) => ({ target: "topic_message_paths", path, representations: reps.filter((r) => r.messagePathIds.includes(path.messagePathId)) }));
  }

  private async events(rows: Record<string, unknown>[]): Promise<QueryResultRow[]> {
    const events = rows.map((row) => this.em.map(RobotEvent, row));
    const associations = await new RobotEventStore(this.em).associationsOf(events.map((e) => e.eventId));
    return events.map((event) => ({ target: "events", event: { event, associations: associations.get(event.eventId) ?? [] } }));
  }
}
