import { rawSql, sql, textArrayLiteral, type SqlFragment } from "@hangar/shared";
import { DAYS_OF_WEEK, type AggregationPeriod, type Bucketing, type DayOfWeek, type MetricValueSelection, type NumericAggregation } from "../domain/metrics";

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

/**
 * The one statement of an aggregation. The window widens to whole periods. In UTC (`bounds`, in
 * UTC days) the per-day partial results come from `metric_daily` (migration 0017) when the
 * selection filters by device at most, else from the values themselves, and are combined per
 * period. In another zone (`zonedAggregateSql`) the values are read. Weekly periods start on
 * `weekStart`. Columns: `start_ns`, `end_ns`, `total`, `value`, oldest period first.
 */
export function aggregateSql(selection: MetricValueSelection, bucketing: Bucketing, aggregation: NumericAggregation): SqlFragment {
  if (bucketing.timeZone !== "UTC") return zonedAggregateSql(selection, bucketing, aggregation);
  const { period, weekStart } = bucketing;
  const { length } = PERIODS[period];
  const start = (day: SqlFragment) => periodStart(period, weekStart, sql`timestamp 'epoch' + ${day} * interval '1 day'`);
  const window = selection.window!;
  return sql`
    with bounds as (
      select metric_day((extract(epoch from lo)::bigint * 1000000000)) as lo_day, metric_day((extract(epoch from hi)::bigint * 1000000000)) as hi_day
      from (select ${start(sql`metric_day(${window.startNs.toString()}::bigint)`)} as lo,
                   ${start(sql`metric_day(${(window.endNs - 1n).toString()}::bigint)`)} + ${length}::interval as hi) w
    ),
    partials as (${partials(selection)}),
    buckets as (
      select ${start(rawSql("p.day"))} as bucket, sum(p.total) as total, ${rawSql(COMBINE[aggregation])} as value
      from partials p group by 1
    )
    select extract(epoch from bucket)::bigint * 1000000000 as start_ns, extract(epoch from bucket + ${length}::interval)::bigint * 1000000000 as end_ns, total, value
    from buckets order by bucket`;
}

/**
 * An aggregation whose periods run from midnight to midnight in `timeZone`: a period is then not a
 * union of UTC days (and lasts an hour more or less across a clock change), so the values are read
 * and placed by their wall-clock time there, to the second. Same columns as aggregateSql.
 */
function zonedAggregateSql(selection: MetricValueSelection, { period, weekStart, timeZone }: Bucketing, aggregation: NumericAggregation): SqlFragment {
  const { length } = PERIODS[period];
  const zone = sql`${timeZone}::text`;
  const wallClock = (ns: SqlFragment) => sql`(to_timestamp(floor(${ns}::numeric / 1000000000)::double precision) at time zone ${zone})`;
  const start = (ns: SqlFragment) => periodStart(period, weekStart, wallClock(ns));
  const instantNs = (local: SqlFragment) => sql`(extract(epoch from (${local}) at time zone ${zone}) * 1000000000)`;
  const time = rawSql(selection.timeFilter === "start_time" ? "v.session_start_ns" : "v.session_end_ns");
  const window = selection.window!;
  return sql`
    with bounds as (
      select ${instantNs(start(sql`${window.startNs.toString()}::bigint`))} as lo_ns,
             ${instantNs(sql`${start(sql`${(window.endNs - 1n).toString()}::bigint`)} + ${length}::interval`)} as hi_ns
    ),
    partials as (
      select ${start(time)} as bucket, 1 as total, v.value as sum, v.value as min, v.value as max
      from metric_values v, bounds b
      where ${selectionCondition({ ...selection, window: undefined })} and ${time} >= b.lo_ns and ${time} < b.hi_ns
    ),
    buckets as (
      select p.bucket, sum(p.total) as total, ${rawSql(COMBINE[aggregation])} as value
      from partials p group by 1
    )
    select ${instantNs(rawSql("bucket"))}::bigint as start_ns, ${instantNs(sql`bucket + ${length}::interval`)}::bigint as end_ns, total, value
    from buckets order by bucket`;
}

/** The start of the period holding a timestamp: date_trunc's, with weeks shifted to start on `weekStart`. */
function periodStart(period: AggregationPeriod, weekStart: DayOfWeek, timestamp: SqlFragment): SqlFragment {
  const { unit } = PERIODS[period];
  const shift = DAYS_OF_WEEK.indexOf(weekStart);
  if (period !== "weekly" || shift === 0) return sql`date_trunc(${unit}, ${timestamp})`;
  return sql`(date_trunc('week', ${timestamp} - ${shift}::int * interval '1 day') + ${shift}::int * interval '1 day')`;
}

function partials(selection: MetricValueSelection): SqlFragment {
  const kind = selection.timeFilter === "start_time" ? "s" : "e";
  if (selection.sessionIds === undefined && selection.invocationIds === undefined) {
    return sql`
      select r.day, r.total, r.sum, r.min, r.max from metric_daily r, bounds b
      where r.metric_id = ${selection.metricId} and r.kind = ${kind} and r.day >= b.lo_day and r.day < b.hi_day and ${idCondition("r.device_id", selection.deviceIds)}`;
  }
  const time = rawSql(kind === "s" ? "v.session_start_ns" : "v.session_end_ns");
  return sql`
    select metric_day(${time}) as day, count(*) as total, sum(v.value) as sum, min(v.value) as min, max(v.value) as max
    from metric_values v, bounds b
    where ${selectionCondition({ ...selection, window: undefined })}
      and ${time} >= b.lo_day::bigint * 86400000000000 and ${time} < b.hi_day::bigint * 86400000000000
    group by 1`;
}

/** The WHERE condition of a selection over `metric_values v` (the aggregate's raw path shares it). */
export function selectionCondition(selection: MetricValueSelection): SqlFragment {
  const time = rawSql(selection.timeFilter === "start_time" ? "v.session_start_ns" : "v.session_end_ns");
  const window = selection.window ? sql`${time} >= ${selection.window.startNs.toString()}::bigint and ${time} < ${selection.window.endNs.toString()}::bigint` : rawSql("true");
  return sql`v.metric_id = ${selection.metricId} and ${window} and ${idCondition("v.device_id", selection.deviceIds)}
    and ${idCondition("v.session_id", selection.sessionIds)} and ${idCondition("v.invocation_id", selection.invocationIds)}`;
}

/** The condition of one `include_*_ids` filter on `column` (see IdFilter). */
export function idCondition(column: string, ids: readonly string[] | null | undefined): SqlFragment {
  if (ids === undefined) return rawSql("true");
  if (ids === null) return rawSql(`${column} is null`);
  return sql`${rawSql(column)} = any(${textArrayLiteral([...ids])}::text[])`;
}
