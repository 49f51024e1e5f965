import { cursorOfRow, newId, rawSql, sql, textArrayLiteral, timestampFromRow, type EntityManager, type PageCursor, type SqlFragment } from "@hangar/shared";
import type { ListedPage } from "../domain/devices";
import type {
  Bucketing,
  GroupSummary,
  MetricAggregateRecord,
  MetricDefinitionRecord,
  MetricRepository,
  MetricValuePage,
  MetricValueRecord,
  MetricValueSelection,
  NewMetricValue,
  NumericAggregation,
  PublishContext,
  ValueOrder,
} from "../domain/metrics";
import { MAX_METRIC_GROUPS } from "../domain/metric-conditions";
import { aggregateSql, valuePageSql } from "./metric-sql";

type Row = Record<string, unknown>;

// A value with its metric's name and its session's bounds, as every reader returns it.
const VALUE_COLUMNS = rawSql(
  "v.seq, v.metric_id, v.org_id, d.name, d.unit, v.session_id, v.session_start_ns, v.session_end_ns, v.value, v.device_id, v.invocation_id, v.published, v.published_by",
);

/**
 * Metric definitions and values over SQL (tables of migrations 0017 and 0018). Values are written with one
 * upsert per publish; aggregation is one statement (metric-sql.ts).
 */
export class MetricStore implements MetricRepository {
  constructor(readonly em: EntityManager) {}

  async findDefinition(orgId: string, name: string, lock = false): Promise<MetricDefinitionRecord | null> {
    const rows = await this.run(sql`select * from metric_definitions where org_id = ${orgId} and name = ${name} ${rawSql(lock ? "for update" : "")}`);
    return rows[0] ? definitionFromRow(rows[0]) : null;
  }

  async findDefinitions(orgId: string, names: readonly string[]): Promise<MetricDefinitionRecord[]> {
    const rows = await this.run(sql`select * from metric_definitions where org_id = ${orgId} and name = any(${textArrayLiteral([...names])}::text[])`);
    return rows.map(definitionFromRow);
  }

  async ensureDefinitions(orgId: string, names: readonly string[], template: Omit<MetricDefinitionRecord, "metricId" | "orgId" | "name">): Promise<Map<string, MetricDefinitionRecord>> {
    const list = textArrayLiteral([...names]);
    const ids = textArrayLiteral(names.map(() => newId("mt")));
    await this.run(sql`
      insert into metric_definitions (metric_id, org_id, name, description, unit, created, created_by, modified, modified_by)
      select n.id, ${orgId}, n.name, ${template.description}, ${template.unit}, ${template.created}, ${template.createdBy}, ${template.modified}, ${template.modifiedBy}
      from unnest(${ids}::text[], ${list}::text[]) as n (id, name)
      on conflict (org_id, name) do nothing`);
    const rows = await this.run(sql`select * from metric_definitions where org_id = ${orgId} and name = any(${list}::text[])`);
    return new Map(rows.map((row) => [row.name as string, definitionFromRow(row)]));
  }

  async addDefinition(record: MetricDefinitionRecord): Promise<boolean> {
    const rows = await this.run(sql`
      insert into metric_definitions (metric_id, org_id, name, description, unit, created, created_by, modified, modified_by)
      values (${record.metricId}, ${record.orgId}, ${record.name}, ${record.description}, ${record.unit}, ${record.created}, ${record.createdBy}, ${record.modified}, ${record.modifiedBy})
      on conflict (org_id, name) do nothing returning metric_id`);
    return rows.length === 1;
  }

  async saveDefinition(record: MetricDefinitionRecord): Promise<void> {
    await this.run(sql`update metric_definitions set description = ${record.description}, unit = ${record.unit}, modified = ${record.modified}, modified_by = ${record.modifiedBy} where metric_id = ${record.metricId}`);
  }

  async removeDefinition(record: MetricDefinitionRecord): Promise<void> {
    await this.run(sql`delete from metric_definitions where metric_id = ${record.metricId}`);
  }

  async listDefinitions(orgId: string, range: { limit: number; cursor: number | undefined }): Promise<ListedPage<MetricDefinitionRecord>> {
    const after = range.cursor === undefined ? rawSql("true") : sql`seq < ${range.cursor}`;
    const [rows, counts] = await Promise.all([
      this.run(sql`select * from metric_definitions where org_id = ${orgId} and ${after} order by seq desc limit ${range.limit + 1}`),
      this.run(sql`select count(*) as total from metric_definitions where org_id = ${orgId}`),
    ]);
    const served = rows.slice(0, range.limit);
    return { rows: served.map(definitionFromRow), keys: served.map((row) => Number(row.seq)), hasMore: rows.length > range.limit, total: Number(counts[0]!.total) };
  }

  async sessionDevices(orgId: string, sessionId: string): Promise<string[] | null> {
    const rows = await this.run(sql`
      select s.session_id, d.device_id from sessions s
      left join session_devices sd on sd.session_id = s.session_id
      left join devices d on d.universal_device_id = sd.universal_device_id
      where s.org_id = ${orgId} and s.session_id = ${sessionId}`);
    if (rows.length === 0) return null;
    return rows.flatMap((row) => (row.device_id === null ? [] : [row.device_id as string]));
  }

  async deviceExists(orgId: string, deviceId: string): Promise<boolean> {
    const rows = await this.run(sql`select 1 from devices where org_id = ${orgId} and (device_id = ${deviceId} or universal_device_id = ${deviceId}) limit 1`);
    return rows.length > 0;
  }

  async publish(context: PublishContext, values: readonly NewMetricValue[]): Promise<MetricValueRecord[]> {
    const ids = textArrayLiteral(values.map((v) => v.metricId));
    // Numbers travel as text so that every double round-trips exactly (float8in reads the shortest form back).
    const numbers = `{${values.map((v) => String(v.value)).join(",")}}`;
    const rows = await this.run(sql`
      with upserted as (
        insert into metric_values (metric_id, session_id, org_id, value, device_id, invocation_id, session_start_ns, session_end_ns, published, published_by)
        select m.metric_id, s.session_id, s.org_id, m.value, ${context.deviceId}, ${context.invocationId}, s.min_timestamp_ns, s.max_timestamp_ns, ${context.published}, ${context.publishedBy}
        from unnest(${ids}::text[], ${numbers}::float8[]) as m (metric_id, value)
        join sessions s on s.session_id = ${context.sessionId} and s.org_id = ${context.orgId}
        on conflict (metric_id, session_id) do update set value = excluded.value, device_id = excluded.device_id, invocation_id = excluded.invocation_id,
          published = excluded.published, published_by = excluded.published_by
        returning *
      )
      select ${VALUE_COLUMNS} from upserted v join metric_definitions d on d.metric_id = v.metric_id`);
    return rows.map(valueFromRow);
  }

  async aggregate(selection: MetricValueSelection, bucketing: Bucketing, aggregation: NumericAggregation): Promise<{ records: MetricAggregateRecord[]; groups: GroupSummary }> {
    const rows = await this.run(aggregateSql(selection, bucketing, aggregation));
    const records = rows.map((row) => ({
      startNs: BigInt(row.start_ns as string),
      endNs: BigInt(row.end_ns as string),
      groupKey: row.group_key as string | null,
      total: BigInt(row.total as string),
      value: Number(row.value),
    }));
    return { records, groups: groupSummary(selection, rows) };
  }

  async queryValues(selection: MetricValueSelection, order: ValueOrder, range: { limit: number; cursor: PageCursor | undefined }): Promise<MetricValuePage> {
    const rows = await this.run(valuePageSql(selection, order, range.cursor, range.limit));
    const served = rows.slice(0, range.limit);
    return { rows: served.map(valueFromRow), cursors: served.map(cursorOfRow), hasMore: rows.length > range.limit, groups: groupSummary(selection, rows) };
  }

  async sessionValues(orgId: string, sessionId: string, limit: number): Promise<MetricValueRecord[]> {
    const rows = await this.run(sql`
      select ${VALUE_COLUMNS} from metric_values v join metric_definitions d on d.metric_id = v.metric_id
      where v.session_id = ${sessionId} and v.org_id = ${orgId} order by d.name limit ${limit}`);
    return rows.map(valueFromRow);
  }

  private run(fragment: SqlFragment): Promise<Row[]> {
    return this.em.execute<Row[]>(fragment.sql, [...fragment.params]);
  }
}

// Every row of a grouped read carries the same `total_groups`; a read with no rows has no group.
function groupSummary(selection: MetricValueSelection, rows: Row[]): GroupSummary {
  if (!selection.groupBy) return { totalGroups: null, groupsTruncated: false };
  const totalGroups = rows.length === 0 ? 0 : Number(rows[0]!.total_groups);
  return { totalGroups, groupsTruncated: totalGroups > MAX_METRIC_GROUPS };
}

function definitionFromRow(row: Row): MetricDefinitionRecord {
  return {
    metricId: row.metric_id as string,
    orgId: row.org_id as string,
    name: row.name as string,
    description: row.description as string | null,
    unit: row.unit as string | null,
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
  };
}

function valueFromRow(row: Row): MetricValueRecord {
  const ns = (v: unknown) => (v === null || v === undefined ? null : BigInt(v as string));
  return {
    metricId: row.metric_id as string,
    orgId: row.org_id as string,
    name: row.name as string,
    unit: row.unit as string | null,
    sessionId: row.session_id as string,
    minTimestampNs: ns(row.session_start_ns),
    maxTimestampNs: ns(row.session_end_ns),
    value: Number(row.value),
    deviceId: row.device_id as string | null,
    invocationId: row.invocation_id as string | null,
    published: timestampFromRow(row.published),
    publishedBy: row.published_by as string,
    groupKey: (row.group_key as string | null | undefined) ?? null,
  };
}
