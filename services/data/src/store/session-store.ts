import { LockMode } from "@mikro-orm/core";
import { listedPage, rawSql, sql, nullableTimestampFromRow, textArrayLiteral, timestampFromRow, type EntityManager, type SqlFragment } from "@hangar/shared";
import type { ListedPage, ListedRange } from "../domain/devices";
import type { SessionTopicRow } from "../domain/session-topics";
import type { SessionFileEntry, SessionFileLink, SessionRecord, SessionRepository, SessionScope } from "../domain/sessions";
import { liveAssociation } from "./deleted-associations";
import { Session } from "./session-entities";

/** The columns of a session's file link and of its file that listings show (`sf`: session_files, `n`: fs_nodes). */
const FILE_ENTRY_COLUMNS = rawSql(
  `sf.*, n.name, n.relative_path, n.origination, n.size, n.tags, n.ingestion_status, n.created as file_created, n.modified as file_modified,
   case when n.association_type = 'dataset' then n.association_id end as dataset_id`,
);

/** An extent `e` lies in the slice of its file that the session file link `sf` holds (either without a range: the whole file). */
const IN_SLICE = rawSql("(sf.data_range_start is null or e.data_range is null or e.data_range && int8range(sf.data_range_start, sf.data_range_end))");

/** An extent `e` overlaps the link's window in wall-clock time (a link without a window holds all of it). */
const IN_WINDOW = rawSql(`(sf.min_file_timestamp_ns is null or e.min_timestamp is null or
  (e.min_timestamp + e.unix_epoch_offset_ns <= sf.max_file_timestamp_ns + coalesce(sf.unix_epoch_offset_ns, 0)
   and e.max_timestamp + e.unix_epoch_offset_ns >= sf.min_file_timestamp_ns + coalesce(sf.unix_epoch_offset_ns, 0)))`);

/** The sessions repository over MikroORM and SQL. */
export class SessionStore implements SessionRepository {
  constructor(readonly em: EntityManager) {}

  find(orgId: string, sessionId: string, lock = false): Promise<SessionRecord | null> {
    return this.em.findOne(Session, { orgId, sessionId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  async findMany(orgId: string, sessionIds: readonly string[]): Promise<SessionRecord[]> {
    return sessionIds.length ? this.em.find(Session, { orgId, sessionId: { $in: [...sessionIds] } }) : [];
  }

  add(record: SessionRecord): SessionRecord {
    const tracked = this.em.create(Session, record);
    this.em.persist(tracked);
    return tracked;
  }

  remove(record: SessionRecord): void {
    this.em.remove(record);
  }

  list(scope: SessionScope, range: ListedRange): Promise<ListedPage<SessionRecord>> {
    return listedPage(this.em, { select: rawSql("s.*"), from: rawSql("sessions s"), where: scopeWhere(scope), seq: "s.seq" }, range, (row) => this.tracked(row));
  }

  async firstMatch(orgId: string, where: SqlFragment): Promise<SessionRecord | null> {
    const query = sql`select s.* from sessions s where s.org_id = ${orgId} and (${where}) order by s.created asc, s.session_id asc limit 1`;
    const rows = await this.em.execute(query.sql, [...query.params]);
    return rows[0] ? this.tracked(rows[0]) : null;
  }

  async lockQuery(orgId: string, query: string): Promise<void> {
    await this.em.execute("select pg_advisory_xact_lock(hashtextextended(?, 0))", [`create-session-if-not-exists:${orgId}:${query}`]);
  }

  async namedOfDevice(universalDeviceId: string, name: string): Promise<SessionRecord[]> {
    const rows = await this.em.execute(
      `select s.* from sessions s join session_devices d on d.session_id = s.session_id
       where d.universal_device_id = ? and s.name = ? order by s.seq for update of s`,
      [universalDeviceId, name],
    );
    return rows.map((row) => this.tracked(row));
  }

  async addDevices(sessionId: string, universalDeviceIds: readonly string[]): Promise<void> {
    if (universalDeviceIds.length === 0) return;
    await this.em.execute(
      `insert into session_devices (session_id, universal_device_id)
       select ?, d from unnest(?::text[]) with ordinality as u(d, i) order by i on conflict do nothing`,
      [sessionId, textArrayLiteral(universalDeviceIds)],
    );
  }

  async removeDevice(sessionId: string, universalDeviceId: string): Promise<void> {
    await this.em.execute("delete from session_devices where session_id = ? and universal_device_id = ?", [sessionId, universalDeviceId]);
  }

  listDevices(sessionId: string, range: ListedRange): Promise<ListedPage<string>> {
    const from = rawSql("session_devices sd join devices dv on dv.universal_device_id = sd.universal_device_id");
    return listedPage(this.em, { select: rawSql("dv.device_id"), from, where: sql`sd.session_id = ${sessionId}`, seq: "sd.seq" }, range, (row) => row.device_id as string);
  }

  async putFiles(links: readonly SessionFileLink[]): Promise<void> {
    for (const l of links) {
      await this.em.execute(
        `insert into session_files (session_id, file_id, data_range_start, data_range_end, unix_epoch_offset_ns, min_file_timestamp_ns, max_file_timestamp_ns,
           created, created_by, modified, modified_by)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (session_id, file_id) do update set data_range_start = excluded.data_range_start, data_range_end = excluded.data_range_end,
           unix_epoch_offset_ns = excluded.unix_epoch_offset_ns, min_file_timestamp_ns = excluded.min_file_timestamp_ns,
           max_file_timestamp_ns = excluded.max_file_timestamp_ns, modified = excluded.modified, modified_by = excluded.modified_by`,
        [l.sessionId, l.fileId, text(l.dataRange?.[0]), text(l.dataRange?.[1]), text(l.unixEpochOffsetNs), text(l.window?.[0]), text(l.window?.[1]), l.created, l.createdBy, l.modified, l.modifiedBy],
      );
    }
  }

  async removeFiles(sessionId: string, fileIds: readonly string[]): Promise<string[]> {
    const rows = await this.em.execute<{ file_id: string }[]>("delete from session_files where session_id = ? and file_id = any(?::text[]) returning file_id", [
      sessionId,
      textArrayLiteral(fileIds),
    ]);
    return rows.map((r) => r.file_id);
  }

  async files(sessionId: string, fileIds?: readonly string[]): Promise<SessionFileEntry[]> {
    const only = fileIds ? sql`and sf.file_id = any(${textArrayLiteral(fileIds)}::text[])` : rawSql("");
    const query = sql`select ${FILE_ENTRY_COLUMNS} from session_files sf join fs_nodes n on n.node_id = sf.file_id
      where sf.session_id = ${sessionId} and ${liveAssociation("n")} ${only} order by sf.seq`;
    return (await this.em.execute(query.sql, [...query.params])).map(fileEntryFromRow);
  }

  async countCompleteHolding(orgId: string, fileIds: readonly string[]): Promise<number> {
    const rows = await this.em.execute<{ n: number }[]>(
      `select count(distinct s.session_id)::int as n from session_files sf join sessions s on s.session_id = sf.session_id
       where sf.file_id = any(?::text[]) and s.org_id = ? and s.status = 'complete'`,
      [textArrayLiteral(fileIds), orgId],
    );
    return rows[0]!.n;
  }

  listFiles(sessionId: string, range: ListedRange): Promise<ListedPage<SessionFileEntry>> {
    const from = rawSql("session_files sf join fs_nodes n on n.node_id = sf.file_id");
    return listedPage(this.em, { select: FILE_ENTRY_COLUMNS, from, where: sql`sf.session_id = ${sessionId} and ${liveAssociation("n")}`, seq: "sf.seq" }, range, fileEntryFromRow);
  }

  async anchorFiles(sessionId: string, unixEpochOffsetNs: bigint | null): Promise<void> {
    await this.em.execute("update session_files set unix_epoch_offset_ns = ? where session_id = ?", [text(unixEpochOffsetNs), sessionId]);
  }

  async skipFiles(sessionId: string, fileIds: readonly string[], by: string, at: Date): Promise<string[]> {
    const rows = await this.em.execute<{ file_id: string }[]>(
      "update session_files set skipped_at = ?, skipped_by = ? where session_id = ? and file_id = any(?::text[]) returning file_id",
      [at, by, sessionId, textArrayLiteral(fileIds)],
    );
    return rows.map((r) => r.file_id);
  }

  /**
   * The bounds of the session's data in wall-clock time: a file with an explicit window gives its
   * window (file time plus the anchor); a file without one gives the extents of its registered
   * topics inside the slice the session holds (stored time plus the extent's offset).
   */
  async dataBounds(sessionId: string): Promise<{ min: bigint | null; max: bigint | null }> {
    const query = sql`select min(lo)::text as min, max(hi)::text as max from (
        select sf.min_file_timestamp_ns + coalesce(sf.unix_epoch_offset_ns, 0) as lo, sf.max_file_timestamp_ns + coalesce(sf.unix_epoch_offset_ns, 0) as hi
        from session_files sf join fs_nodes n on n.node_id = sf.file_id
        where sf.session_id = ${sessionId} and ${liveAssociation("n")} and sf.min_file_timestamp_ns is not null
        union all
        select e.min_timestamp + e.unix_epoch_offset_ns, e.max_timestamp + e.unix_epoch_offset_ns
        from session_files sf join fs_nodes n on n.node_id = sf.file_id join timeline_extents e on e.file_id = sf.file_id
        where sf.session_id = ${sessionId} and ${liveAssociation("n")} and sf.min_file_timestamp_ns is null and ${IN_SLICE}
      ) b`;
    const [row] = await this.em.execute<{ min: string | null; max: string | null }[]>(query.sql, [...query.params]);
    return { min: bigintOrNull(row?.min), max: bigintOrNull(row?.max) };
  }

  async topics(sessionId: string, range: ListedRange, name?: string): Promise<ListedPage<SessionTopicRow>> {
    const held = sql`select distinct ts.topic_id from session_files sf join fs_nodes n on n.node_id = sf.file_id
      join timeline_extents e on e.file_id = sf.file_id join timeline_sources ts on ts.timeline_source_id = e.timeline_source_id
      where sf.session_id = ${sessionId} and ${liveAssociation("n")} and ${IN_SLICE} and ${IN_WINDOW}`;
    const named = name === undefined ? rawSql("") : sql`where t.topic_name = ${name}`;
    const offset = range.before ?? 0;
    const list = sql`select t.topic_id, t.topic_name, t.org_id, t.created, t.created_by, t.modified, t.modified_by
      from topics t join (${held}) h using (topic_id) ${named} order by t.topic_name, t.topic_id limit ${range.limit + 1} offset ${offset}`;
    const count = sql`select count(*) as total from topics t join (${held}) h using (topic_id) ${named}`;
    const [rows, counts] = await Promise.all([this.em.execute(list.sql, [...list.params]), this.em.execute<{ total: string }[]>(count.sql, [...count.params])]);
    const served = rows.slice(0, range.limit);
    return { rows: served.map(sessionTopicFromRow), keys: served.map((_, i) => offset + i + 1), hasMore: rows.length > range.limit, total: Number(counts[0]!.total) };
  }

  async holdingFile(orgId: string, fileId: string): Promise<SessionRecord[]> {
    const rows = await this.em.execute(
      "select s.* from sessions s where s.org_id = ? and s.session_id in (select session_id from session_files where file_id = ?) order by s.session_id for update",
      [orgId, fileId],
    );
    return rows.map((row) => this.tracked(row));
  }

  async due(now: Date, limit: number): Promise<SessionRecord[]> {
    const rows = await this.em.execute(
      "select * from sessions where status = 'in_progress' and completes_at <= ? order by completes_at limit ? for update skip locked",
      [now, limit],
    );
    return rows.map((row) => this.tracked(row));
  }

  private tracked(row: Record<string, unknown>): SessionRecord {
    return this.em.merge(Session, this.em.map(Session, row));
  }
}

function scopeWhere(scope: SessionScope): SqlFragment {
  if ("orgId" in scope) return sql`s.org_id = ${scope.orgId}`;
  if ("universalDeviceId" in scope) return sql`s.session_id in (select session_id from session_devices where universal_device_id = ${scope.universalDeviceId})`;
  return sql`s.session_id in (select sf.session_id from session_files sf join fs_nodes n on n.node_id = sf.file_id where n.association_id = ${scope.datasetId})`;
}

// Bigints travel to the driver as text, so no value passes through a double.
function text(value: bigint | null | undefined): string | null {
  return value === null || value === undefined ? null : value.toString();
}

function bigintOrNull(value: unknown): bigint | null {
  return value === null || value === undefined ? null : BigInt(value as string);
}

function pair(start: unknown, end: unknown): [bigint, bigint] | null {
  return start === null || start === undefined ? null : [BigInt(start as string), BigInt(end as string)];
}

function sessionTopicFromRow(row: Record<string, unknown>): SessionTopicRow {
  return {
    topicId: row.topic_id as string,
    name: row.topic_name as string,
    orgId: row.org_id as string,
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
  };
}

/** Maps a raw session file row (with its file's columns, see FILE_ENTRY_COLUMNS) to an entry. */
function fileEntryFromRow(row: Record<string, unknown>): SessionFileEntry {
  return {
    sessionId: row.session_id as string,
    fileId: row.file_id as string,
    dataRange: pair(row.data_range_start, row.data_range_end),
    unixEpochOffsetNs: bigintOrNull(row.unix_epoch_offset_ns),
    window: pair(row.min_file_timestamp_ns, row.max_file_timestamp_ns),
    skippedAt: nullableTimestampFromRow(row.skipped_at),
    skippedBy: row.skipped_by as string | null,
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
    datasetId: (row.dataset_id as string | null) ?? null,
    name: row.name as string,
    relativePath: row.relative_path as string,
    origination: row.origination as string,
    size: BigInt(row.size as string),
    tags: row.tags as string[],
    ingestionStatus: row.ingestion_status as string,
    fileCreated: timestampFromRow(row.file_created),
    fileModified: timestampFromRow(row.file_modified),
  };
}
