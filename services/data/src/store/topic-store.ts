import type { JsonObject } from "@bufbuild/protobuf";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { readRows, textArrayLiteral, timestampFromRow, type EntityManager } from "@hangar/shared";
import type { ListedPage, ListedRange } from "../domain/devices";
import type { MessagePathRow, RepresentationRow, TimeBounds, TopicRepository, TopicRow, TopicSelector, TopicView } from "../domain/topics";

type Row = Record<string, unknown>;

const TOPIC_COLUMNS = `topic_id, org_id, association_type, association_id, association_version, topic_name, schema_name, schema_checksum,
  schema_id, start_time, end_time, message_count, metadata, default_representation_id, created, created_by, modified, modified_by`;

// A representation of `rp` with the ids of the message paths it holds; int8 as text, as the driver
// returns it.
const REPRESENTATION_COLUMNS = `rp.representation_id, rp.topic_id, rp.org_id, rp.association_type, rp.association_id,
  rp.association_version::text as association_version, rp.storage_format, rp.version::text as version, rp.format, rp.transformations,
  rp.created, rp.modified, rp.seq,
  coalesce((select array_agg(l.message_path_id order by l.message_path_id) from message_path_representations l
    where l.representation_id = rp.representation_id), '{}') as message_path_ids`;

// A topic of `t` with its message paths and representations as JSON columns (oldest first), each
// path and representation a positional array (PATH_FIELDS, REPRESENTATION_FIELDS): a read of any
// number of topics is one statement, whose cost follows the rows it returns, and PostgreSQL writes
// neither key names nor the topic's own ids again for every path and representation.
const VIEW_COLUMNS = `${TOPIC_COLUMNS.replace(/(\w+)/g, "t.$1")}, t.seq,
  (select coalesce(json_agg(json_build_array(mp.message_path_id, mp.message_path, mp.source_path, mp.path_in_schema, mp.data_type,
      mp.canonical_data_type, mp.metadata, mp.created, mp.created_by, mp.modified, mp.modified_by) order by mp.seq), '[]')
    from message_paths mp where mp.topic_id = t.topic_id) as message_paths_json,
  (select coalesce(json_agg(json_build_array(rp.representation_id, rp.association_type, rp.association_id, rp.association_version::text,
      rp.storage_format, rp.version::text, rp.format, rp.transformations, rp.created, rp.modified,
      coalesce((select array_agg(l.message_path_id order by l.message_path_id) from message_path_representations l
        where l.representation_id = rp.representation_id), '{}')) order by rp.seq), '[]')
    from representations rp where rp.topic_id = t.topic_id) as representations_json`;

/** A message path as VIEW_COLUMNS lists it. */
type PathFields = [string, string, string, string[], string, string, JsonObject, string, string, string, string];
/** A representation as VIEW_COLUMNS lists it (int8 as text, as the driver returns it from a row). */
type RepresentationFields = [string, string, string, string | null, string, string, string | null, string[], string, string, string[]];

// An association's topic count (`0025-association-topic-counts`, `0026-association-topic-count-deltas`:
// the sum of a few delta rows, kept by triggers), when the association is the org's: its first
// topic says so (0 when it has none, or is another org's). Parameters: association id, org id, association id.
const COUNT_SQL = `(select coalesce(sum(c.topics), 0)::bigint from association_topic_counts c where c.association_id = ?
  and exists (select 1 from topics o where o.org_id = ? and o.association_id = ?))`;

/**
 * The topics repository in SQL: every statement is one round trip whatever the batch size
 * (arrays and JSON record sets as parameters), and reads are scoped to the org.
 */
export class TopicStore implements TopicRepository {
  constructor(readonly em: EntityManager) {}

  async byId(orgId: string, topicId: string, lock = false): Promise<TopicRow | null> {
    const rows = await this.em.execute<Row[]>(`select ${TOPIC_COLUMNS} from topics where org_id = ? and topic_id = ?${lock ? " for update" : ""}`, [orgId, topicId]);
    return rows[0] ? topicFromRow(rows[0]) : null;
  }

  async byName(orgId: string, associationId: string, topicName: string, lock = false): Promise<TopicRow | null> {
    return (await this.byNames(orgId, associationId, [topicName], lock))[0] ?? null;
  }

  async byNames(orgId: string, associationId: string, names: readonly string[], lock = false): Promise<TopicRow[]> {
    const rows = await this.em.execute<Row[]>(
      `select ${TOPIC_COLUMNS} from topics where org_id = ? and association_id = ? and topic_name = any(?::text[]) order by topic_id${lock ? " for update" : ""}`,
      [orgId, associationId, textArrayLiteral(names)],
    );
    return rows.map(topicFromRow);
  }

  async insert(row: TopicRow): Promise<boolean> {
    const rows = await this.em.execute<Row[]>(
      `insert into topics (${TOPIC_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?)
       on conflict (association_id, topic_name) do nothing returning topic_id`,
      topicParams(row),
    );
    return rows.length === 1;
  }

  async update(row: TopicRow): Promise<void> {
    const [topicId, ...rest] = topicParams(row);
    await this.em.execute(
      `update topics set org_id = ?, association_type = ?, association_id = ?, association_version = ?, topic_name = ?, schema_name = ?,
       schema_checksum = ?, schema_id = ?, start_time = ?, end_time = ?, message_count = ?, metadata = ?::jsonb, default_representation_id = ?,
       created = ?, created_by = ?, modified = ?, modified_by = ? where topic_id = ?`,
      [...rest, topicId],
    );
  }

  async saveAll(rows: readonly TopicRow[]): Promise<boolean> {
    if (rows.length === 0) return true;
    const json = JSON.stringify(rows.map((row) => topicParams(row)));
    try {
      await this.em.execute(
        `insert into topics (${TOPIC_COLUMNS})
         select r->>0, r->>1, r->>2, r->>3, (r->>4)::bigint, r->>5, r->>6, r->>7, r->>8, (r->>9)::bigint, (r->>10)::bigint, (r->>11)::bigint,
                (r->>12)::jsonb, r->>13, (r->>14)::timestamptz, r->>15, (r->>16)::timestamptz, r->>17
         from jsonb_array_elements(?::jsonb) r
         on conflict (topic_id) do update set schema_name = excluded.schema_name, schema_checksum = excluded.schema_checksum,
           start_time = excluded.start_time, end_time = excluded.end_time, message_count = excluded.message_count, metadata = excluded.metadata,
           default_representation_id = excluded.default_representation_id, modified = excluded.modified, modified_by = excluded.modified_by`,
        [json],
      );
      return true;
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) return false;
      throw error;
    }
  }

  async remove(topicId: string): Promise<void> {
    await this.em.execute("delete from topics where topic_id = ?", [topicId]);
  }

  async list(orgId: string, associationId: string, range: ListedRange): Promise<ListedPage<TopicView>> {
    const after = range.before === undefined ? "" : " and t.seq < ?";
    const params = range.before === undefined ? [orgId, associationId] : [orgId, associationId, range.before];
    // The count's one row left-joined to the page: the number comes back even for an empty page.
    // The page's row count is in the text, not a parameter: with `limit $n` PostgreSQL cannot cost
    // a generic plan and planned the prepared statement again on every page (0.4 ms of its 2.6).
    const rows = await this.read(
      `select c.total, v.* from (select ${COUNT_SQL} as total) c
       left join lateral (select ${VIEW_COLUMNS} from topics t where t.org_id = ? and t.association_id = ?${after} order by t.seq desc limit ${pageRows(range.limit)}) v on true`,
      [associationId, orgId, associationId, ...params],
    );
    const found = rows.filter((r) => r.topic_id !== null);
    const served = found.slice(0, range.limit);
    return { rows: served.map(viewFromRow), keys: served.map((r) => Number(r.seq)), hasMore: found.length > range.limit, total: Number(rows[0]!.total) };
  }

  async count(orgId: string, associationId: string): Promise<number> {
    const rows = await this.em.execute<{ total: string }[]>(`select ${COUNT_SQL} as total`, [associationId, orgId, associationId]);
    return Number(rows[0]!.total);
  }

  async views(orgId: string, which: TopicSelector): Promise<TopicView[]> {
    if ("topicIds" in which) {
      if (which.topicIds.length === 0) return [];
      const rows = await this.read(`select ${VIEW_COLUMNS} from topics t where t.org_id = ? and t.topic_id = any(?::text[])`, [
        orgId,
        textArrayLiteral(which.topicIds),
      ]);
      const byId = new Map(rows.map((row) => [row.topic_id as string, viewFromRow(row)]));
      return which.topicIds.flatMap((id) => byId.get(id) ?? []);
    }
    const rows = await this.read(`select ${VIEW_COLUMNS} from topics t where t.org_id = ? and t.association_id = ? and t.topic_name = ?`, [
      orgId,
      which.associationId,
      which.topicName,
    ]);
    return rows.map(viewFromRow);
  }

  async timeBounds(orgId: string, associationId: string): Promise<TimeBounds> {
    const rows = await this.em.execute<Row[]>("select min(start_time) as s, max(end_time) as e from topics where org_id = ? and association_id = ?", [orgId, associationId]);
    return { startTime: bigintOrNull(rows[0]?.s), endTime: bigintOrNull(rows[0]?.e) };
  }

  /**
   * A read of the views: in a transaction on its connection (it sees the transaction's writes),
   * else as a prepared statement, so PostgreSQL plans the statement once, not on every page.
   */
  private read(query: string, params: unknown[]): Promise<Row[]> {
    return readRows(this.em, query, params);
  }

  async messagePaths(topicIds: readonly string[]): Promise<MessagePathRow[]> {
    const rows = await this.em.execute<Row[]>("select * from message_paths where topic_id = any(?::text[]) order by seq", [textArrayLiteral(topicIds)]);
    return rows.map(pathFromRow);
  }

  async representations(topicIds: readonly string[]): Promise<RepresentationRow[]> {
    const rows = await this.em.execute<Row[]>(`select ${REPRESENTATION_COLUMNS} from representations rp where rp.topic_id = any(?::text[]) order by rp.seq`, [
      textArrayLiteral(topicIds),
    ]);
    return rows.map(representationFromRow);
  }

  async messagePathById(orgId: string, messagePathId: string): Promise<MessagePathRow | null> {
    const rows = await this.em.execute<Row[]>("select * from message_paths where org_id = ? and message_path_id = ?", [orgId, messagePathId]);
    return rows[0] ? pathFromRow(rows[0]) : null;
  }

  async insertMessagePaths(rows: readonly MessagePathRow[]): Promise<boolean> {
    const json = JSON.stringify(rows.map((r) => ({ ...r, created: r.created.toISOString(), modified: r.modified.toISOString() })));
    const inserted = await this.em.execute<Row[]>(
      `insert into message_paths (message_path_id, topic_id, org_id, message_path, source_path, path_in_schema, data_type, canonical_data_type,
         metadata, created, created_by, modified, modified_by)
       select "messagePathId", "topicId", "orgId", "messagePath", "sourcePath", "pathInSchema", "dataType", "canonicalDataType",
         metadata, created, "createdBy", modified, "modifiedBy"
       from jsonb_to_recordset(?::jsonb) as p("messagePathId" text, "topicId" text, "orgId" text, "messagePath" text, "sourcePath" text,
         "pathInSchema" text[], "dataType" text, "canonicalDataType" text, metadata jsonb, created timestamptz, "createdBy" text,
         modified timestamptz, "modifiedBy" text)
       on conflict (topic_id, message_path) do nothing returning message_path_id`,
      [json],
    );
    return inserted.length === rows.length;
  }

  async updateMessagePath(row: MessagePathRow): Promise<void> {
    await this.em.execute(
      "update message_paths set path_in_schema = ?::text[], data_type = ?, canonical_data_type = ?, metadata = ?::jsonb, modified = ?, modified_by = ? where message_path_id = ?",
      [textArrayLiteral(row.pathInSchema), row.dataType, row.canonicalDataType, JSON.stringify(row.metadata), row.modified, row.modifiedBy, row.messagePathId],
    );
  }

  async deleteMessagePaths(topicId: string, paths: readonly string[] | "all"): Promise<void> {
    if (paths === "all") await this.em.execute("delete from message_paths where topic_id = ?", [topicId]);
    else await this.em.execute("delete from message_paths where topic_id = ? and message_path = any(?::text[])", [topicId, textArrayLiteral(paths)]);
  }

  async insertRepresentations(rows: readonly RepresentationRow[]): Promise<void> {
    if (rows.length === 0) return;
    const json = JSON.stringify(
      rows.map((r) => [r.representationId, r.topicId, r.orgId, r.associationType, r.associationId, r.associationVersion?.toString() ?? null, r.storageFormat,
        r.version.toString(), r.format, r.transformations, r.created.toISOString(), r.modified.toISOString()]),
    );
    await this.em.execute(
      `insert into representations (representation_id, topic_id, org_id, association_type, association_id, association_version, storage_format,
         version, format, transformations, created, modified)
       select r->>0, r->>1, r->>2, r->>3, r->>4, (r->>5)::bigint, r->>6, (r->>7)::bigint, r->>8,
              array(select jsonb_array_elements_text(r->9)), (r->>10)::timestamptz, (r->>11)::timestamptz
       from jsonb_array_elements(?::jsonb) r`,
      [json],
    );
    const links = rows.flatMap((r) => r.messagePathIds.map((id) => [r.representationId, id]));
    if (links.length === 0) return;
    await this.em.execute(
      "insert into message_path_representations (representation_id, message_path_id) select l->>0, l->>1 from jsonb_array_elements(?::jsonb) l on conflict do nothing",
      [JSON.stringify(links)],
    );
  }

  async deleteRepresentationsOf(topicIds: readonly string[]): Promise<void> {
    if (topicIds.length === 0) return;
    await this.em.execute("delete from representations where topic_id = any(?::text[])", [textArrayLiteral(topicIds)]);
  }

  async linkRepresentation(representationId: string, messagePathIds: readonly string[]): Promise<void> {
    if (messagePathIds.length === 0) return;
    await this.em.execute(
      "insert into message_path_representations (representation_id, message_path_id) select ?, unnest(?::text[]) on conflict do nothing",
      [representationId, textArrayLiteral(messagePathIds)],
    );
  }
}

/** The rows a page reads: its size and one more, to know whether another page follows. */
function pageRows(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`a page of ${limit} topics`);
  return limit + 1;
}

function topicParams(row: TopicRow): unknown[] {
  return [
    row.topicId,
    row.orgId,
    row.associationType,
    row.associationId,
    row.associationVersion?.toString() ?? null,
    row.topicName,
    row.schemaName,
    row.schemaChecksum,
    row.schemaId,
    row.startTime?.toString() ?? null,
    row.endTime?.toString() ?? null,
    row.messageCount?.toString() ?? null,
    JSON.stringify(row.metadata),
    row.defaultRepresentationId,
    row.created,
    row.createdBy,
    row.modified,
    row.modifiedBy,
  ];
}

/** A nullable bigint column (the pg driver returns int8 as text). */
export function bigintOrNull(value: unknown): bigint | null {
  return value === null || value === undefined ? null : BigInt(value as string);
}

/** A topic from its `topics` row (also the saved-query results store's mapping). */
export function topicFromRow(row: Row): TopicRow {
  return {
    topicId: row.topic_id as string,
    orgId: row.org_id as string,
    associationType: row.association_type as string,
    associationId: row.association_id as string,
    associationVersion: bigintOrNull(row.association_version),
    topicName: row.topic_name as string,
    schemaName: row.schema_name as string | null,
    schemaChecksum: row.schema_checksum as string | null,
    schemaId: row.schema_id as string | null,
    startTime: bigintOrNull(row.start_time),
    endTime: bigintOrNull(row.end_time),
    messageCount: bigintOrNull(row.message_count),
    metadata: row.metadata as JsonObject,
    defaultRepresentationId: row.default_representation_id as string | null,
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
  };
}

/** A topic view from a VIEW_COLUMNS row (the driver parses the JSON columns), its paths and representations in one pass each. */
function viewFromRow(row: Row): TopicView {
  const topic = topicFromRow(row);
  const { topicId, orgId } = topic;
  const messagePaths = (row.message_paths_json as PathFields[]).map(
    ([messagePathId, messagePath, sourcePath, pathInSchema, dataType, canonicalDataType, metadata, created, createdBy, modified, modifiedBy]): MessagePathRow => ({
      messagePathId,
      topicId,
      orgId,
      messagePath,
      sourcePath,
      pathInSchema,
      dataType,
      canonicalDataType,
      metadata,
      created: timestampFromRow(created),
      createdBy,
      modified: timestampFromRow(modified),
      modifiedBy,
    }),
  );
  const representations = (row.representations_json as RepresentationFields[]).map(
    ([representationId, associationType, associationId, associationVersion, storageFormat, version, format, transformations, created, modified, messagePathIds]): RepresentationRow => ({
      representationId,
      topicId,
      orgId,
      associationType,
      associationId,
      associationVersion: bigintOrNull(associationVersion),
      storageFormat,
      version: BigInt(version),
      format,
      transformations,
      created: timestampFromRow(created),
      modified: timestampFromRow(modified),
      messagePathIds,
    }),
  );
  return { topic, messagePaths, representations };
}

/** A message path from its `message_paths` row (also the saved-query results store's mapping). */
export function pathFromRow(row: Row): MessagePathRow {
  return {
    messagePathId: row.message_path_id as string,
    topicId: row.topic_id as string,
    orgId: row.org_id as string,
    messagePath: row.message_path as string,
    sourcePath: row.source_path as string,
    pathInSchema: row.path_in_schema as string[],
    dataType: row.data_type as string,
    canonicalDataType: row.canonical_data_type as string,
    metadata: row.metadata as JsonObject,
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
  };
}

function representationFromRow(row: Row): RepresentationRow {
  return {
    representationId: row.representation_id as string,
    topicId: row.topic_id as string,
    orgId: row.org_id as string,
    associationType: row.association_type as string,
    associationId: row.association_id as string,
    associationVersion: bigintOrNull(row.association_version),
    storageFormat: row.storage_format as string,
    version: BigInt(row.version as string),
    format: row.format as string | null,
    transformations: row.transformations as string[],
    created: timestampFromRow(row.created),
    modified: timestampFromRow(row.modified),
    messagePathIds: row.message_path_ids as string[],
  };
}
