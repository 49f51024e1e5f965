import { compileKeysetOrder, compileWhere, createFieldCatalog, keysetRangesSql, rawSql, sql, textArrayLiteral, type FieldCatalog, type FieldRef, type KeysetOrder, type PageCursor, type Relation, type SqlFragment } from "@hangar/shared";
import { conditionEntityOf, MAX_METRIC_GROUPS, type MetricGroupBy } from "../domain/metric-conditions";
import { sessionCatalog } from "../domain/session-search";
import { DAYS_OF_WEEK, type AggregationPeriod, type Bucketing, type DayOfWeek, type MetricValueSelection, type NumericAggregation, type ValueOrder } from "../domain/metrics";

// PostgreSQL's date_trunc unit and the length of one bucket, per period (date_trunc's weeks are ISO
// weeks, from Monday; `periodStart` shifts them to another first day).
const PERIODS: Record<AggregationPeriod, { unit: string; length: string }> = {
  daily: { unit: "day", length: "1 day" },
  weekly: { unit: "week", length: "1 week" },
  monthly: { unit: "month", length: "1 month" },
  quarterly: { unit: "quarter", length: "3 months" },
  yearly: { unit: "year", length: "1 year" },
};

// Each aggregation over per-day partial results (count, sum, min, max), exact for every one of them.
const COMBINE: Record<NumericAggregation, string> = {
  sum: "sum(p.sum)",
  mean: "sum(p.sum) / sum(p.total)",
  max: "max(p.max)",
  min: "min(p.min)",
  count: "sum(p.total)",
};

const DAY_NS = 86_400_000_000_000n;

/**
 * The one statement of an aggregation. Its periods are whole periods around the window. The
 * per-day partial results of `metric_daily` (migration 0017) serve it when it is in UTC, filters by
 * device at most, has no condition, groups by device at most, and takes whole days (the window
 * widens, or its bounds are midnights); otherwise it reads the values (`valuesAggregateSql`). Weekly periods start
 * on `weekStart`. Columns: `start_ns`, `end_ns`, `group_key`, `total`, `value`, `total_groups`,
 * oldest period first.
 */
export function aggregateSql(selection: MetricValueSelection, bucketing: Bucketing, aggregation: NumericAggregation): SqlFragment {
  return readsPartials(selection, bucketing) ? partialsAggregateSql(selection, bucketing, aggregation) : valuesAggregateSql(selection, bucketing, aggregation);
}

function readsPartials(selection: MetricValueSelection, bucketing: Bucketing): boolean {
  const { startNs, endNs } = selection.window!;
  const wholeDays = bucketing.widenToWholePeriods || (startNs % DAY_NS === 0n && endNs % DAY_NS === 0n);
  const filtersValues = selection.sessionIds !== undefined || selection.invocationIds !== undefined || selection.condition !== undefined || selection.groupBy?.kind === "custom";
  return bucketing.timeZone === "UTC" && wholeDays && !filtersValues;
}

function partialsAggregateSql(selection: MetricValueSelection, { period, weekStart, widenToWholePeriods }: Bucketing, aggregation: NumericAggregation): SqlFragment {
  const { length } = PERIODS[period];
  const start = (day: SqlFragment) => periodStart(period, weekStart, sql`timestamp 'epoch' + ${day} * interval '1 day'`);
  const window = selection.window!;
  const bounds = widenToWholePeriods
    ? sql`
      select metric_day((extract(epoch from lo)::bigint * 1000000000)) as lo_day, metric_day((extract(epoch from hi)::bigint * 1000000000)) as hi_day
      from (select ${start(sql`metric_day(${window.startNs.toString()}::bigint)`)} as lo,
                   ${start(sql`metric_day(${(window.endNs - 1n).toString()}::bigint)`)} + ${length}::interval as hi) w`
    : sql`select ${(window.startNs / DAY_NS).toString()}::integer as lo_day, ${(window.endNs / DAY_NS).toString()}::integer as hi_day`;
  const kind = selection.timeFilter === "start_time" ? "s" : "e";
  return sql`
    with bounds as (${bounds}),
    partials as (
      select r.day, ${rawSql(selection.groupBy ? "r.device_id" : "null::text")} as group_key, r.total, r.sum, r.min, r.max from metric_daily r, bounds b
      where ${metricCondition("r", selection.metricIds)} and r.kind = ${kind} and r.day >= b.lo_day and r.day < b.hi_day
        and ${idCondition("r.device_id", selection.deviceIds)}
    ),
    ${selection.groupBy ? devicesInWindowCtes(selection) : rawSql("ranked as (select null::text as group_key, 0 as n where false)")},
    kept as (${KEPT_SELECT}),
    buckets as (
      select ${start(rawSql("p.day"))} as bucket, p.group_key, sum(p.total) as total, ${rawSql(COMBINE[aggregation])} as value
      from partials p where ${KEPT_GROUP} group by 1, 2
    )
    select extract(epoch from bucket)::bigint * 1000000000 as start_ns, extract(epoch from bucket + ${length}::interval)::bigint * 1000000000 as end_ns,
      group_key, total, value, (select count(*) from ranked) as total_groups
    from buckets order by bucket, group_key collate "C" nulls last`;
}

/**
 * `ranked` for a device-grouped aggregation over the partials (CTE `partials`): each device with
 * values in the returned periods, with its values in the requested window, counted exactly: the
 * window's whole days from the partials, its partial first and last days from the values (a range
 * of the time index each).
 */
function devicesInWindowCtes(selection: MetricValueSelection): SqlFragment {
  const { startNs, endNs } = selection.window!;
  const [firstWholeDay, endWholeDay] = [(startNs + DAY_NS - 1n) / DAY_NS, endNs / DAY_NS];
  const time = timeColumn(selection);
  const valuesIn = (from: bigint, to: bigint) => sql`(${time} >= ${from.toString()}::bigint and ${time} < ${to.toString()}::bigint)`;
  const edges = firstWholeDay > endWholeDay ? valuesIn(startNs, endNs) : sql`(${valuesIn(startNs, firstWholeDay * DAY_NS)} or ${valuesIn(endWholeDay * DAY_NS, endNs)})`;
  return sql`
    in_window as (
      select p.group_key, p.total as n from partials p where p.day >= ${firstWholeDay.toString()}::integer and p.day < ${endWholeDay.toString()}::integer
      union all
      select v.device_id, 1 from metric_values v where ${selectionCondition({ ...selection, window: undefined })} and ${edges}
    ),
    ranked as (
      select g.group_key, coalesce(sum(w.n), 0) as n
      from (select distinct group_key from partials where group_key is not null) g left join in_window w on w.group_key = g.group_key
      group by 1
    )`;
}

/**
 * An aggregation over the values themselves, placed by their wall-clock time in `timeZone` (to the
 * second): in a zone other than UTC a period is not a union of UTC days (and lasts an hour more or
 * less across a clock change). Without widening, only the values inside the window count. Under
 * `groupBy` the periods split by group key, and only the MAX_METRIC_GROUPS named groups with the
 * most values in the requested window are kept (`groupCtes`). Same columns as aggregateSql.
 */
function valuesAggregateSql(selection: MetricValueSelection, { period, weekStart, timeZone, widenToWholePeriods }: Bucketing, aggregation: NumericAggregation): SqlFragment {
  const { length } = PERIODS[period];
  const zone = sql`${timeZone}::text`;
  const wallClock = (ns: SqlFragment) => sql`(to_timestamp(floor(${ns}::numeric / 1000000000)::double precision) at time zone ${zone})`;
  const start = (ns: SqlFragment) => periodStart(period, weekStart, wallClock(ns));
  const instantNs = (local: SqlFragment) => sql`(extract(epoch from (${local}) at time zone ${zone}) * 1000000000)`;
  const time = timeColumn(selection);
  const window = selection.window!;
  const [windowStart, windowEnd] = [sql`${window.startNs.toString()}::bigint`, sql`${window.endNs.toString()}::bigint`];
  const [from, to] = widenToWholePeriods ? [rawSql("b.lo_ns"), rawSql("b.hi_ns")] : [windowStart, windowEnd];
  // The values are first summed per slot and group: in UTC a slot is a UTC day (integer arithmetic
  // per value, and few rows to place in periods), elsewhere the value's period itself.
  const utc = timeZone === "UTC";
  const slot = utc ? sql`metric_day(${time})` : start(time);
  const bucket = utc ? periodStart(period, weekStart, rawSql("timestamp 'epoch' + p.slot * interval '1 day'")) : rawSql("p.slot");
  return sql`
    with bounds as (
      select ${instantNs(start(windowStart))} as lo_ns, ${instantNs(sql`${start(sql`${(window.endNs - 1n).toString()}::bigint`)} + ${length}::interval`)} as hi_ns
    ),
    points as (
      select ${slot} as slot, ${groupKeySql(selection.groupBy)} as group_key, count(*) as total, sum(v.value) as sum, min(v.value) as min, max(v.value) as max,
        count(*) filter (where ${time} >= ${windowStart} and ${time} < ${windowEnd}) as in_window
      from ${valueSource(selection)}, bounds b
      where ${selectionCondition({ ...selection, window: undefined })} and ${time} >= ${from} and ${time} < ${to}
      group by 1, 2
    ),
    ${groupCtes("sum(in_window)")},
    buckets as (
      select ${bucket} as bucket, p.group_key, sum(p.total) as total, ${rawSql(COMBINE[aggregation])} as value
      from points p where ${KEPT_GROUP} group by 1, 2
    )
    select ${instantNs(rawSql("bucket"))}::bigint as start_ns, ${instantNs(sql`bucket + ${length}::interval`)}::bigint as end_ns, group_key, total, value,
      (select count(*) from ranked) as total_groups
    from buckets order by bucket, group_key collate "C" nulls last`;
}

/**
 * The CTEs `ranked` (each named group of the CTE `points`, with `valuesInWindow`, its values in the
 * requested window, as it counts them over `points`) and `kept` (the MAX_METRIC_GROUPS of them with
 * the most, ties by key). `KEPT_GROUP` keeps a row of `points p` whose group is kept or null (never
 * dropped).
 */
function groupCtes(valuesInWindow: "count(*)" | "sum(in_window)"): SqlFragment {
  return rawSql(`ranked as (select group_key, ${valuesInWindow} as n from points where group_key is not null group by 1),
    kept as (${KEPT_SELECT.sql})`);
}
const KEPT_SELECT = rawSql(`select group_key from ranked order by n desc, group_key collate "C" limit ${MAX_METRIC_GROUPS}`);
const KEPT_GROUP = rawSql("(p.group_key is null or p.group_key in (select group_key from kept))");

/** The start of the period holding a timestamp: date_trunc's, with weeks shifted to start on `weekStart`. */
function periodStart(period: AggregationPeriod, weekStart: DayOfWeek, timestamp: SqlFragment): SqlFragment {
  const { unit } = PERIODS[period];
  const shift = DAYS_OF_WEEK.indexOf(weekStart);
  if (period !== "weekly" || shift === 0) return sql`date_trunc(${unit}, ${timestamp})`;
  return sql`(date_trunc('week', ${timestamp} - ${shift}::int * interval '1 day') + ${shift}::int * interval '1 day')`;
}

/**
 * The query of one page of values (`v` columns, the definition's `name` and `unit`, `group_key`,
 * `total_groups`, and the cursor columns), after `cursor` in `order`. Ungrouped, it is one ordered
 * scan that stops after the page; grouped, the groups are ranked over every selected value first.
 */
export function valuePageSql(selection: MetricValueSelection, order: ValueOrder, cursor: PageCursor | undefined, limit: number): SqlFragment {
  const keyset = valueKeysetOrder(selection, order);
  const points = sql`
    select v.*, md.name, md.unit, ${groupKeySql(selection.groupBy)} as group_key
    from ${valueSource(selection)} join metric_definitions md on md.metric_id = v.metric_id
    where ${selectionCondition(selection)}`;
  const page = (from: SqlFragment, kept: SqlFragment, totalGroups: SqlFragment) => (after: SqlFragment) => sql`
    select p.*, ${totalGroups} as total_groups, ${keyset.cursorColumns} from ${from}
    where ${kept} and ${after} order by ${keyset.orderBy} limit ${limit + 1}`;
  // Ungrouped, the page reads the (metric, time, session) index from the cursor on, range by range.
  if (!selection.groupBy) return keysetRangesSql(keyset.afterRanges(cursor, "page_token"), page(sql`(${points}) p`, rawSql("true"), rawSql("0")), keyset.orderBy, "p", limit);
  // The query's values are all in its window, so a group's rank is its number of values.
  return sql`with points as (${points}), ${groupCtes("count(*)")} ${page(rawSql("points p"), KEPT_GROUP, rawSql("(select count(*) from ranked)"))(keyset.after(cursor, "page_token"))}`;
}

/**
 * A value query's sort fields over the page's rows `p`; ties go to the session, then the metric.
 * Of one metric the session alone breaks ties, so the index on (metric, time, session) of
 * migration 0023 serves the default order page by page. The time is null for a session without
 * files (migration 0017 leaves it nullable), but never inside a window, whose bounds compare it.
 */
function valueKeysetOrder(selection: MetricValueSelection, order: ValueOrder): KeysetOrder {
  const windowed = selection.window !== undefined ? ({ notNull: true } as const) : {};
  const catalog = createFieldCatalog({
    columns: {
      time: { sql: selection.timeFilter === "start_time" ? `"p"."session_start_ns"` : `"p"."session_end_ns"`, type: "number", ...windowed },
      value: { sql: `"p"."value"`, type: "number", notNull: true },
      published: { sql: `"p"."published"`, type: "timestamp", notNull: true },
      device_id: { sql: `"p"."device_id"`, type: "text" },
      session_id: { sql: `"p"."session_id"`, type: "text", notNull: true },
      invocation_id: { sql: `"p"."invocation_id"`, type: "text" },
      group_key: { sql: `"p"."group_key"`, type: "text" },
    },
  });
  const tieBreaker = selection.metricIds.length === 1 ? `"p"."session_id"` : `(("p"."session_id" || '/' || "p"."metric_id") collate "C")`;
  return compileKeysetOrder(order.sortBy, order.descending ? "DESC" : "ASC", catalog, tieBreaker);
}

/** The WHERE condition of a selection over `metric_values v` (with `s` and `d` when `valueSource` joins them). */
function selectionCondition(selection: MetricValueSelection): SqlFragment {
  const time = timeColumn(selection);
  const window = selection.window ? sql`${time} >= ${selection.window.startNs.toString()}::bigint and ${time} < ${selection.window.endNs.toString()}::bigint` : rawSql("true");
  return sql`${metricCondition("v", selection.metricIds)} and ${window} and ${idCondition("v.device_id", selection.deviceIds)}
    and ${idCondition("v.session_id", selection.sessionIds)} and ${idCondition("v.invocation_id", selection.invocationIds)}
    and ${compileWhere(selection.condition, METRIC_CONDITION_FIELDS, "condition")}`;
}

// One metric is an equality, which lets the planner read an index on (metric, ...) in its order.
function metricCondition(alias: "v" | "r", metricIds: readonly string[]): SqlFragment {
  const column = rawSql(`${alias}.metric_id`);
  return metricIds.length === 1 ? sql`${column} = ${metricIds[0]!}` : sql`${column} = any(${textArrayLiteral([...metricIds])}::text[])`;
}

function timeColumn(selection: MetricValueSelection): SqlFragment {
  return rawSql(selection.timeFilter === "start_time" ? "v.session_start_ns" : "v.session_end_ns");
}

/**
 * The values (`v`), joined to their session (`s`) and producing device (`d`, by its `device_id`)
 * when the condition or the group key reads them.
 */
function valueSource(selection: MetricValueSelection): SqlFragment {
  if (selection.condition === undefined && selection.groupBy?.kind !== "custom") return rawSql("metric_values v");
  return rawSql("metric_values v join sessions s on s.session_id = v.session_id left join devices d on d.org_id = v.org_id and d.device_id = v.device_id");
}

/** A value's group key as text: null ungrouped, and for a value without the field (or with a list or object in it). */
function groupKeySql(groupBy: MetricGroupBy | undefined): SqlFragment {
  if (!groupBy) return rawSql("null::text");
  if (groupBy.kind === "device_id") return rawSql("v.device_id");
  const column = rawSql(groupBy.entity === "session" ? "s.custom_fields" : "d.custom_fields");
  return sql`(case when jsonb_typeof(${column} -> ${groupBy.name}::text) in ('string', 'number', 'boolean') then ${column} ->> ${groupBy.name}::text end)`;
}

/** The condition of one `include_*_ids` filter on `column` (see IdFilter). */
function idCondition(column: string, ids: readonly string[] | null | undefined): SqlFragment {
  if (ids === undefined) return rawSql("true");
  if (ids === null) return rawSql(`${column} is null`);
  return sql`${rawSql(column)} = any(${textArrayLiteral([...ids])}::text[])`;
}

// A session's own fields (session queries' catalog over `sessions s`) and the time fields the SDK
// documents for metric conditions, with custom fields as `custom.<name>`.
const sessionTimeFields = createFieldCatalog({
  columns: {
    min_timestamp_ns: { sql: `"s"."min_timestamp_ns"`, type: "number" },
    start_time: { sql: `"s"."min_timestamp_ns"`, type: "number" },
    max_timestamp_ns: { sql: `"s"."max_timestamp_ns"`, type: "number" },
    end_time: { sql: `"s"."max_timestamp_ns"`, type: "number" },
    duration: { sql: `("s"."max_timestamp_ns" - "s"."min_timestamp_ns")`, type: "number" },
  },
  jsonColumns: { custom: `"s"."custom_fields"` },
});
const sessionFields: FieldCatalog = { resolve: (field) => sessionTimeFields.resolve(field) ?? sessionCatalog.resolve(field) };

const deviceFields = createFieldCatalog({
  columns: {
    device_id: { sql: `"d"."device_id"`, type: "text" },
    id: { sql: `"d"."device_id"`, type: "text" },
    tags: { sql: `"d"."tags"`, type: "text[]" },
    created: { sql: `"d"."created"`, type: "timestamp" },
    created_by: { sql: `"d"."created_by"`, type: "text" },
    modified: { sql: `"d"."modified"`, type: "timestamp" },
    modified_by: { sql: `"d"."modified_by"`, type: "text" },
  },
  jsonColumns: { custom: `"d"."custom_fields"`, metadata: `"d"."metadata"` },
});

// The collections of the value's org that its session is a current member of: some one of them
// must pass the test.
const sessionCollections: Relation = {
  key: "collection",
  exists: (test) => sql`exists (select 1 from collection_members cm join collections c on c.collection_id = cm.collection_id
    where cm.resource_type = 'session' and cm.resource_id = v.session_id and cm.removed_version is null and c.org_id = v.org_id and ${test})`,
};

const collectionFields = createFieldCatalog({
  columns: { collection_id: { sql: `"cm"."collection_id"`, type: "text" }, id: { sql: `"cm"."collection_id"`, type: "text" } },
  jsonColumns: { custom: `"c"."custom_fields"` },
});

/**
 * The fields a metric `condition` may name (SDK 0.62's vocabulary): each names its entity first,
 * singular or plural (`session.name`, `devices.tags`); a bare field is unknown.
 */
const METRIC_CONDITION_FIELDS: FieldCatalog = {
  resolve(field: string): FieldRef | undefined {
    const rest = field.slice(field.indexOf(".") + 1);
    switch (field.includes(".") ? conditionEntityOf(field) : undefined) {
      case "session":
        return sessionFields.resolve(rest);
      case "device":
        return deviceFields.resolve(rest);
      case "collection": {
        const ref = collectionFields.resolve(rest);
        return ref && ref.kind !== "related" ? { kind: "related", relation: sessionCollections, ref } : undefined;
      }
      case undefined:
        return undefined;
    }
  },
};
