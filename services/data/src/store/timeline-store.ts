import { textArrayLiteral, timestampFromRow, type EntityManager } from "@hangar/shared";
import type { FileExtent, TimelineExtentRow, TimelineRepository, TimelineSourceRow } from "../domain/file-topics";
import { bigintOrNull } from "./topic-store";

type Row = Record<string, unknown>;

/** The timelines of file topics in SQL: one statement per method, batches as array parameters. */
export class TimelineStore implements TimelineRepository {
  constructor(readonly em: EntityManager) {}

  async upsertSources(rows: readonly TimelineSourceRow[]): Promise<TimelineSourceRow[]> {
    if (rows.length === 0) return [];
    const stored = await this.em.execute<Row[]>(
      `insert into timeline_sources (timeline_source_id, topic_id, org_id, name, kind, field_path, is_default_for_reads)
       select r->>0, r->>1, r->>2, r->>3, r->>4, array(select jsonb_array_elements_text(r->5)), (r->>6)::boolean from jsonb_array_elements(?::jsonb) r
       on conflict (topic_id, name) do update set kind = excluded.kind, field_path = excluded.field_path,
         is_default_for_reads = timeline_sources.is_default_for_reads or excluded.is_default_for_reads
       returning timeline_source_id, topic_id, name`,
      [JSON.stringify(rows.map((r) => [r.timelineSourceId, r.topicId, r.orgId, r.name, r.kind, r.fieldPath, r.isDefaultForReads]))],
    );
    const ids = new Map(stored.map((row) => [`${row.topic_id as string}\0${row.name as string}`, row.timeline_source_id as string]));
    return rows.map((r) => ({ ...r, timelineSourceId: ids.get(`${r.topicId}\0${r.name}`)! }));
  }

  async setDefaults(keep: readonly TimelineSourceRow[]): Promise<void> {
    if (keep.length === 0) return;
    await this.em.execute("update timeline_sources set is_default_for_reads = (timeline_source_id = any(?::text[])) where topic_id = any(?::text[])", [
      textArrayLiteral(keep.map((s) => s.timelineSourceId)),
      textArrayLiteral(keep.map((s) => s.topicId)),
    ]);
  }

  async upsertExtents(rows: readonly TimelineExtentRow[]): Promise<void> {
    if (rows.length === 0) return;
    const json = JSON.stringify(
      rows.map((x) => [
        x.timelineExtentId,
        x.timelineSourceId,
        x.topicPartId,
        x.fileId,
        x.dataRange ? `[${x.dataRange[0]},${x.dataRange[1]})` : null,
        x.orgId,
        x.minTimestamp?.toString() ?? null,
        x.maxTimestamp?.toString() ?? null,
        x.unixEpochOffsetNs.toString(),
        x.created.toISOString(),
        x.createdBy,
        x.modified.toISOString(),
        x.modifiedBy,
      ]),
    );
    await this.em.execute(
      `insert into timeline_extents (timeline_extent_id, timeline_source_id, topic_part_id, file_id, data_range, org_id, min_timestamp, max_timestamp,
         unix_epoch_offset_ns, created, created_by, modified, modified_by)
       select r->>0, r->>1, r->>2, r->>3, (r->>4)::int8range, r->>5, (r->>6)::bigint, (r->>7)::bigint,
              (r->>8)::bigint, (r->>9)::timestamptz, r->>10, (r->>11)::timestamptz, r->>12
       from jsonb_array_elements(?::jsonb) r
       on conflict (timeline_source_id, topic_part_id) do update set min_timestamp = excluded.min_timestamp, max_timestamp = excluded.max_timestamp,
         unix_epoch_offset_ns = excluded.unix_epoch_offset_ns, modified = excluded.modified, modified_by = excluded.modified_by`,
      [json],
    );
  }

  async extentsOfFile(orgId: string, fileId: string): Promise<FileExtent[]> {
    const rows = await this.em.execute<Row[]>(
      `select e.*, lower(e.data_range) as range_start, upper(e.data_range) as range_end, s.topic_id, s.name as source_name, s.kind as source_kind, t.topic_name
       from timeline_extents e join timeline_sources s using (timeline_source_id) join topics t on t.topic_id = s.topic_id
       where e.org_id = ? and e.file_id = ? order by t.topic_name, s.name, e.topic_part_id`,
      [orgId, fileId],
    );
    return rows.map((row) => ({
      ...extentFromRow(row),
      topicId: row.topic_id as string,
      topicName: row.topic_name as string,
      sourceName: row.source_name as string,
      sourceKind: row.source_kind as string,
    }));
  }

  async setOffsets(extents: readonly Pick<TimelineExtentRow, "timelineExtentId" | "unixEpochOffsetNs" | "modified" | "modifiedBy">[]): Promise<void> {
    if (extents.length === 0) return;
    await this.em.execute(
      `update timeline_extents e set unix_epoch_offset_ns = c.offset_ns, modified = c.modified, modified_by = c.modified_by
       from unnest(?::text[], ?::bigint[], ?::timestamptz[], ?::text[]) as c(id, offset_ns, modified, modified_by) where e.timeline_extent_id = c.id`,
      [
        textArrayLiteral(extents.map((x) => x.timelineExtentId)),
        textArrayLiteral(extents.map((x) => x.unixEpochOffsetNs.toString())),
        textArrayLiteral(extents.map((x) => x.modified.toISOString())),
        textArrayLiteral(extents.map((x) => x.modifiedBy)),
      ],
    );
  }

  async recomputeTopicBounds(topicIds: readonly string[]): Promise<void> {
    if (topicIds.length === 0) return;
    await this.em.execute(
      `update topics t set start_time = b.start_time, end_time = b.end_time
       from (select s.topic_id, min(e.min_timestamp + e.unix_epoch_offset_ns) as start_time, max(e.max_timestamp + e.unix_epoch_offset_ns) as end_time
             from timeline_sources s join timeline_extents e using (timeline_source_id)
             where s.topic_id = any(?::text[]) group by s.topic_id) b
       where t.topic_id = b.topic_id`,
      [textArrayLiteral(topicIds)],
    );
  }
}

function extentFromRow(row: Row): TimelineExtentRow {
  const start = bigintOrNull(row.range_start);
  const end = bigintOrNull(row.range_end);
  return {
    timelineExtentId: row.timeline_extent_id as string,
    timelineSourceId: row.timeline_source_id as string,
    topicPartId: row.topic_part_id as string,
    fileId: row.file_id as string,
    dataRange: start !== null && end !== null ? [start, end] : null,
    orgId: row.org_id as string,
    minTimestamp: bigintOrNull(row.min_timestamp),
    maxTimestamp: bigintOrNull(row.max_timestamp),
    unixEpochOffsetNs: BigInt(row.unix_epoch_offset_ns as string),
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
  };
}
