import { LockMode } from "@mikro-orm/core";
import { listedPage, rawSql, sql, textArrayLiteral, timestampFromRow, type EntityManager, type SqlFragment } from "@hangar/shared";
import type { ListedPage, ListedRange } from "../domain/devices";
import type { SessionFileEntry, SessionFileLink, SessionRecord, SessionRepository, SessionScope } from "../domain/sessions";
import { liveAssociation } from "./deleted-associations";
import { Session } from "./session-entities";

/** The columns of a session's file link and of its file that listings show (`sf`: session_files, `n`: fs_nodes). */
const FILE_ENTRY_COLUMNS = rawSql(
  `sf.*, n.name, n.relative_path, n.origination, n.size, n.tags, n.ingestion_status, n.created as file_created, n.modified as file_modified,
   case when n.association_type = 'dataset' then n.association_id end as dataset_id`,
);

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
   * The bounds of the session's files' wall-clock windows (file time plus the anchor). Topic
   * extents join in here once topics are part of the data service.
   */
  async dataBounds(sessionId: string): Promise<{ min: bigint | null; max: bigint | null }> {
    const query = sql`select min(sf.min_file_timestamp_ns + coalesce(sf.unix_epoch_offset_ns, 0))::text as min,
        max(sf.max_file_timestamp_ns + coalesce(sf.unix_epoch_offset_ns, 0))::text as max
      from session_files sf join fs_nodes n on n.node_id = sf.file_id where sf.session_id = ${sessionId} and ${liveAssociation("n")}`;
    const [row] = await this.em.execute<{ min: string | null; max: string | null }[]>(query.sql, [...query.params]);
    return { min: bigintOrNull(row?.min), max: bigintOrNull(row?.max) };
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

/** Maps a raw session file row (with its file's columns, see FILE_ENTRY_COLUMNS) to an entry. */
function fileEntryFromRow(row: Record<string, unknown>): SessionFileEntry {
  return {
    sessionId: row.session_id as string,
    fileId: row.file_id as string,
    dataRange: pair(row.data_range_start, row.data_range_end),
    unixEpochOffsetNs: bigintOrNull(row.unix_epoch_offset_ns),
    window: pair(row.min_file_timestamp_ns, row.max_file_timestamp_ns),
    skippedAt: row.skipped_at === null ? null : timestampFromRow(row.skipped_at),
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
