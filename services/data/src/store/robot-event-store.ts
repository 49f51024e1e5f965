import { LockMode } from "@mikro-orm/core";
import { listedPage, rawSql, sql, textArrayLiteral, type EntityManager, type SqlFragment } from "@hangar/shared";
import type { ListedPage, ListedRange } from "../domain/devices";
import type {
  EventAssociation,
  EventAssociationType,
  EventTargetRepository,
  RobotEventRecord,
  RobotEventRepository,
  RobotEventScope,
  RobotEventWithAssociations,
} from "../domain/robot-events";
import { liveAssociation } from "./deleted-associations";
import { RobotEvent } from "./session-entities";

/** The events repository: events over MikroORM, their associations in SQL. */
export class RobotEventStore implements RobotEventRepository {
  constructor(readonly em: EntityManager) {}

  find(orgId: string, eventId: string, lock = false): Promise<RobotEventRecord | null> {
    return this.em.findOne(RobotEvent, { orgId, eventId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  async associations(eventId: string): Promise<EventAssociation[]> {
    return (await this.associationsOf([eventId])).get(eventId) ?? [];
  }

  async add(record: RobotEventRecord, associations: readonly EventAssociation[]): Promise<void> {
    this.em.persist(this.em.create(RobotEvent, record));
    // One statement for all of them; the typed columns carry the foreign keys that clean up.
    const idWhen = (type: EventAssociation["associationType"]) => textArrayLiteral(associations.map((a) => (a.associationType === type ? a.associationId : null)));
    await this.em.execute(
      `insert into event_associations (event_id, association_type, association_id, association_version, dataset_id, file_id, topic_id, message_path_id, position)
       select ?, q.type, q.id, q.version::bigint, q.dataset_id, q.file_id, q.topic_id, q.message_path_id, q.position - 1
       from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) with ordinality
         as q(type, id, version, dataset_id, file_id, topic_id, message_path_id, position)`,
      [
        record.eventId,
        textArrayLiteral(associations.map((a) => a.associationType)),
        textArrayLiteral(associations.map((a) => a.associationId)),
        textArrayLiteral(associations.map((a) => (a.associationVersion === null ? null : a.associationVersion.toString()))),
        idWhen("dataset"),
        idWhen("file"),
        idWhen("topic"),
        idWhen("message_path"),
      ],
    );
  }

  async deleteMany(orgId: string, eventIds: readonly string[]): Promise<number> {
    const rows = await this.em.execute<{ event_id: string }[]>("delete from robot_events where org_id = ? and event_id = any(?::text[]) returning event_id", [
      orgId,
      textArrayLiteral(eventIds),
    ]);
    return rows.length;
  }

  async list(scope: RobotEventScope, range: ListedRange): Promise<ListedPage<RobotEventWithAssociations>> {
    const where = sql`e.org_id = ${scope.orgId} and e.event_id in (${"datasetId" in scope ? ofDataset(scope.datasetId) : ofAny(scope.associations)})`;
    const page = await listedPage(this.em, { select: rawSql("e.*"), from: rawSql("robot_events e"), where, seq: "e.seq" }, range, (row) => this.em.map(RobotEvent, row));
    const associations = await this.associationsOf(page.rows.map((e) => e.eventId));
    return { ...page, rows: page.rows.map((event) => ({ event, associations: associations.get(event.eventId) ?? [] })) };
  }

  async countOfDataset(datasetId: string): Promise<number> {
    const query = sql`select count(*) as n from robot_events e where e.event_id in (${ofDataset(datasetId)})`;
    const rows = await this.em.execute<{ n: string }[]>(query.sql, [...query.params]);
    return Number(rows[0]!.n);
  }

  /** The associations of several events (one query), each file's with its dataset. */
  async associationsOf(eventIds: readonly string[]): Promise<Map<string, EventAssociation[]>> {
    const byEvent = new Map<string, EventAssociation[]>();
    if (eventIds.length === 0) return byEvent;
    const rows = await this.em.execute<Record<string, string | null>[]>(
      `select a.event_id, a.association_type, a.association_id, a.association_version::text as association_version,
         case when n.association_type = 'dataset' then n.association_id end as parent_dataset_id
       from event_associations a left join fs_nodes n on n.node_id = a.file_id
       where a.event_id = any(?::text[]) order by a.event_id, a.position`,
      [textArrayLiteral(eventIds)],
    );
    for (const row of rows) {
      const list = byEvent.get(row.event_id!) ?? [];
      list.push({
        associationType: row.association_type as EventAssociationType,
        associationId: row.association_id!,
        associationVersion: row.association_version === null ? null : BigInt(row.association_version!),
        parentDatasetId: row.parent_dataset_id ?? null,
      });
      byEvent.set(row.event_id!, list);
    }
    return byEvent;
  }
}

/** The ids of events about a dataset itself or about one of its (live) files. */
function ofDataset(datasetId: string): SqlFragment {
  return sql`select a.event_id from event_associations a where a.dataset_id = ${datasetId}
    union select a.event_id from event_associations a join fs_nodes n on n.node_id = a.file_id where n.association_id = ${datasetId} and ${liveAssociation("n")}`;
}

/** The ids of events about any of the given entities. */
function ofAny(associations: readonly EventAssociation[]): SqlFragment {
  const types = textArrayLiteral(associations.map((a) => a.associationType));
  const ids = textArrayLiteral(associations.map((a) => a.associationId));
  return sql`select a.event_id from event_associations a join unnest(${types}::text[], ${ids}::text[]) as q(t, id)
    on a.association_id = q.id and a.association_type = q.t`;
}

/** What events may be about, read from the data service's tables. */
export class EventTargetStore implements EventTargetRepository {
  constructor(readonly em: EntityManager) {}

  async datasets(orgId: string, datasetIds: readonly string[]): Promise<Set<string>> {
    const rows = await this.em.execute<{ id: string }[]>("select dataset_id as id from datasets where org_id = ? and dataset_id = any(?::text[])", [
      orgId,
      textArrayLiteral(datasetIds),
    ]);
    return new Set(rows.map((r) => r.id));
  }

  async files(orgId: string, fileIds: readonly string[]): Promise<Set<string>> {
    const query = sql`select n.node_id as id from fs_nodes n where n.org_id = ${orgId} and n.node_id = any(${textArrayLiteral(fileIds)}::text[])
      and n.fs_type = 'file' and n.status = 'available' and ${liveAssociation("n")}`;
    const rows = await this.em.execute<{ id: string }[]>(query.sql, [...query.params]);
    return new Set(rows.map((r) => r.id));
  }

  async topics(orgId: string, topicIds: readonly string[]): Promise<Set<string>> {
    return this.idsOf("select topic_id as id from topics where org_id = ? and topic_id = any(?::text[])", orgId, topicIds);
  }

  async messagePaths(orgId: string, messagePathIds: readonly string[]): Promise<Set<string>> {
    return this.idsOf("select message_path_id as id from message_paths where org_id = ? and message_path_id = any(?::text[])", orgId, messagePathIds);
  }

  private async idsOf(query: string, orgId: string, ids: readonly string[]): Promise<Set<string>> {
    const rows = await this.em.execute<{ id: string }[]>(query, [orgId, textArrayLiteral(ids)]);
    return new Set(rows.map((r) => r.id));
  }
}
