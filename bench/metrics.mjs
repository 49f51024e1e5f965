// Benchmark: aggregate_metrics over 10,000,000 values of one metric (issue 14's goal: p50 under
// 200 ms through the gateway), beside the same SQL statement run directly with node-postgres in the
// same run. Run with `npm run build && npm run bench:metrics`. Seeding takes minutes on 2 cores;
// BENCH_QUICK=1 seeds 100,000 values.
//
// One value per (metric, session), as the API has it, so 10,000,000 values are 10,000,000
// sessions: spread evenly over 2024-2025 (session ends) across 10 devices, seeded with set-based SQL
// (see seed(): the values and the per-day partials migration 0017 describes, in one statement per
// batch of a million, checked against each other). Each aggregation runs one at a time: a monthly mean over the two years (every
// value), a daily sum over one quarter, and the same monthly mean for one device; then, for
// context, SDK 0.62's group_by: per device (the daily partials keep devices apart, so it reads them),
// and per session custom field (which reads every value, and ranks the groups over them); and an
// aggregation that must read the values themselves (a session filter of 1,000 ids). Then
// query_metric_values pages in the default order.
import { createRequire } from "node:module";
import pgModule from "pg";
import { sequential } from "./measure.mjs";
import { createTenant, startBenchPlatform } from "./platform.mjs";
import { createReport, loadAverage, sized } from "./report.mjs";

const require = createRequire(import.meta.url);
const { aggregateSql, valuePageSql } = require("../services/data/dist/store/metric-sql.js");

const VALUES = Number(process.env.BENCH_METRIC_VALUES ?? sized(10_000_000, 100_000));
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? sized(50, 10));
/**
 * Requests of the case that reads every value (about 21 s each at 10,000,000): its p50 is context,
 * not a goal, and 50 of them each way took the full run 35 minutes.
 */
const HEAVY_REQUESTS = Math.min(REQUESTS, Number(process.env.BENCH_HEAVY_REQUESTS ?? 3));
const GOAL_P50_MS = 200;
const START_NS = BigInt(Date.parse("2024-01-01T00:00:00Z")) * 1_000_000n;
const END_NS = BigInt(Date.parse("2026-01-01T00:00:00Z")) * 1_000_000n;

const report = createReport("metrics");
const platform = await startBenchPlatform();
// The data service's schema, as its own connections name it, so the store's SQL runs unchanged.
const db = new pgModule.Client({ connectionString: platform.pgUrl, options: "-c search_path=data" });
await db.connect();
try {
  const tenant = await createTenant(platform.api, "metrics");
  const api = platform.apiAs(tenant.token);
  const metric = (await api("POST", "/v1/metrics/definition/", { name: "distance.km" })).data;
  const seconds = await seed(tenant.orgId, metric.metric_id);
  console.log(`seeded ${VALUES.toLocaleString("en-US")} values in ${seconds.toFixed(0)} s (load average ${loadAverage()})`);
  const cases = [
    { name: "monthly mean over 2 years (every value)", body: { period: "monthly", aggregation: "mean", start_time_ns: START_NS, end_time_ns: END_NS }, goal: true },
    { name: "daily sum over one quarter", body: { period: "daily", aggregation: "sum", start_time_ns: START_NS, end_time_ns: START_NS + 90n * 86_400_000_000_000n } },
    { name: "monthly mean of one device", body: { period: "monthly", aggregation: "mean", start_time_ns: START_NS, end_time_ns: END_NS, include_device_ids: ["robot-3"] } },
    { name: "monthly max of 1,000 sessions (reads the values)", body: { period: "monthly", aggregation: "max", start_time_ns: START_NS, end_time_ns: END_NS, include_session_ids: await someSessions(1000) } },
    { name: "monthly mean per device (group_by device.device_id)", body: { period: "monthly", aggregation: "mean", start_time_ns: START_NS, end_time_ns: END_NS, group_by: "device.device_id" } },
    { name: "monthly mean per session custom field (group_by, reads every value)", body: { period: "monthly", aggregation: "mean", start_time_ns: START_NS, end_time_ns: END_NS, group_by: "session.custom.site" }, requests: HEAVY_REQUESTS },
  ];
  for (const c of cases) await report.attempt(c.name, () => measure(api, metric.metric_id, c));
  await report.attempt("query_metric_values pages", () => measureQueryPages(api, metric.metric_id));
} finally {
  await db.end();
  await platform.stop();
}
report.print();

async function measure(api, metricId, c) {
  const body = { name: "distance.km", ...c.body, start_time_ns: Number(c.body.start_time_ns), end_time_ns: Number(c.body.end_time_ns) };
  const requests = c.requests ?? REQUESTS;
  const gateway = await sequential(async () => {
    const res = await api("POST", "/v1/metrics/aggregate", body);
    if (!res.data?.records?.length) throw new Error(`no buckets: ${JSON.stringify(res).slice(0, 200)}`);
    return res;
  }, requests);
  const statement = aggregateSql(selectionOf(metricId, c.body), { period: c.body.period, weekStart: "monday", timeZone: "UTC", widenToWholePeriods: true }, c.body.aggregation);
  const direct = await sequential(async () => ({ data: (await db.query(toPg(statement.sql), statement.params)).rows }), requests);
  report.add(`${c.name}: p50 through the gateway`, gateway.p50, "ms", { goal: c.goal ? { max: GOAL_P50_MS } : undefined, anchor: { name: "the same SQL direct, p50", value: direct.p50 } });
  report.add(`${c.name}: p99 through the gateway`, gateway.p99, "ms");
  report.add(`${c.name}: the same SQL direct, p50`, direct.p50, "ms");
}

/**
 * query_metric_values in SDK 0.62's default order (session time, ties by session): the first page
 * of 100 and the page after the value in the middle of the metric, through the gateway and as the
 * store's SQL direct. No goal is set for it; the figure shows whether a page reads an index range.
 */
async function measureQueryPages(api, metricId) {
  const middle = (await db.query("select session_end_ns, session_id from metric_values where metric_id = $1 order by session_end_ns, session_id offset $2 limit 1", [metricId, Math.floor(VALUES / 2)])).rows[0];
  const cursors = { "first page of 100": undefined, "page of 100 after the middle value": { key: String(middle.session_end_ns), id: middle.session_id } };
  const direct = {};
  for (const [name, cursor] of Object.entries(cursors)) {
    const statement = valuePageSql({ ...selectionOf(metricId, {}), window: undefined }, { sortBy: "time", descending: false }, cursor, 100);
    direct[name] = (await sequential(async () => ({ data: (await db.query(toPg(statement.sql), statement.params)).rows }), REQUESTS)).p50;
    report.add(`query, ${name}: the store's SQL direct, p50`, direct[name], "ms");
  }
  const gateway = await sequential(async () => {
    const res = await api("POST", "/v1/metrics/query", { name: "distance.km", max_results: 100 });
    if (res.data?.items?.length !== 100) throw new Error(`not a page: ${JSON.stringify(res).slice(0, 200)}`);
    return res;
  }, REQUESTS);
  report.add("query, first page of 100: p50 through the gateway", gateway.p50, "ms", { anchor: { name: "the same SQL direct, p50", value: direct["first page of 100"] } });
}

function selectionOf(metricId, body) {
  return {
    metricIds: [metricId],
    timeFilter: "end_time",
    window: { startNs: body.start_time_ns, endNs: body.end_time_ns },
    deviceIds: body.include_device_ids,
    sessionIds: body.include_session_ids,
    invocationIds: undefined,
    condition: undefined,
    groupBy: groupByOf(body.group_by),
  };
}

// The group_by fields the cases use, as the domain reads them (domain/metric-conditions.ts).
function groupByOf(field) {
  if (field === "device.device_id") return { kind: "device_id" };
  if (field?.startsWith("session.custom.")) return { kind: "custom", entity: "session", name: field.slice("session.custom.".length) };
  return undefined;
}

// The store's fragments use `?` placeholders (knex style); node-postgres numbers them.
function toPg(text) {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/**
 * Seeds VALUES sessions with one value each, set-based, in batches of a million rows; resolves the
 * seconds it took. Row by row through the tables' triggers this took about 45 minutes, almost all
 * of it in the foreign-key checks, the index upkeep and the daily-partials trigger recomputing
 * days. So the connection runs as a restore does (`session_replication_role = replica`: no
 * triggers, no foreign-key checks; the rows are consistent by construction), the secondary
 * indexes are dropped and rebuilt once at the end, and each batch writes its values and their
 * daily partials in one statement: the partials are the inserted rows grouped as
 * `metric_daily_recompute()` groups them, added to the rows an earlier batch left for the same day.
 * The seeded partials are checked against the values before any figure is taken.
 */
async function seed(orgId, metricId) {
  const started = performance.now();
  const span = END_NS - START_NS;
  await db.query("set session_replication_role = replica");
  const indexes = await dropSecondaryIndexes(["sessions", "metric_values"]);
  await db.query(`insert into devices (universal_device_id, org_id, device_id, created, created_by, modified, modified_by)
    select 'ud_bench_' || d, $1, 'robot-' || d, now(), 'bench', now(), 'bench' from generate_series(0, 9) d`, [orgId]);
  for (let from = 0; from < VALUES; from += 1_000_000) {
    const to = Math.min(VALUES, from + 1_000_000) - 1;
    const bounds = [orgId, from, to, START_NS.toString(), span.toString(), VALUES];
    await db.query(`insert into sessions (session_id, org_id, min_timestamp_ns, max_timestamp_ns, created, created_by, modified, modified_by)
      select 'ss_bench_' || i, $1, $4::bigint + (i::numeric * $5::bigint / $6)::bigint - 3600000000000, $4::bigint + (i::numeric * $5::bigint / $6)::bigint, now(), 'bench', now(), 'bench'
      from generate_series($2::int, $3::int) i`, bounds);
    await db.query(`with inserted as (
        insert into metric_values (metric_id, session_id, org_id, value, device_id, session_start_ns, session_end_ns, published, published_by)
        select $7, 'ss_bench_' || i, $1, (i % 1000) / 10.0, 'robot-' || (i % 10),
          $4::bigint + (i::numeric * $5::bigint / $6)::bigint - 3600000000000, $4::bigint + (i::numeric * $5::bigint / $6)::bigint, now(), 'bench'
        from generate_series($2::int, $3::int) i
        returning metric_id, value, device_id, session_start_ns, session_end_ns)
      insert into metric_daily as d (metric_id, kind, day, device_id, total, sum, min, max)
        select metric_id, 'e', metric_day(session_end_ns), device_id, count(*), sum(value), min(value), max(value) from inserted group by 1, 3, 4
        union all
        select metric_id, 's', metric_day(session_start_ns), device_id, count(*), sum(value), min(value), max(value) from inserted group by 1, 3, 4
      on conflict (metric_id, kind, day, device_id) do update
        set total = d.total + excluded.total, sum = d.sum + excluded.sum, min = least(d.min, excluded.min), max = greatest(d.max, excluded.max)`,
    [...bounds, metricId]);
  }
  for (const definition of indexes) await db.query(definition);
  await db.query("reset session_replication_role");
  await db.query("analyze sessions; analyze metric_values; analyze metric_daily");
  await checkPartials(metricId);
  return (performance.now() - started) / 1000;
}

/** Drops the tables' indexes other than their primary keys; resolves the statements that rebuild them. */
async function dropSecondaryIndexes(tables) {
  const { rows } = await db.query(`select i.indexname, i.indexdef from pg_indexes i
    where i.schemaname = current_schema() and i.tablename = any($1)
      and not exists (select from pg_constraint c where c.conname = i.indexname)`, [tables]);
  for (const { indexname } of rows) await db.query(`drop index ${pgIdentifier(indexname)}`);
  return rows.map((row) => row.indexdef);
}

function pgIdentifier(name) {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Fails the run when the seeded partials do not add up to the values, per time kind. */
async function checkPartials(metricId) {
  const { rows } = await db.query(`select kind, sum(total)::bigint as total, sum(sum) as sum from metric_daily where metric_id = $1 group by kind`, [metricId]);
  const values = (await db.query(`select count(*)::bigint as total, sum(value) as sum from metric_values where metric_id = $1`, [metricId])).rows[0];
  for (const kind of ["s", "e"]) {
    const partial = rows.find((row) => row.kind === kind);
    if (partial?.total !== values.total || Math.abs(partial.sum - values.sum) > 1e-6 * Math.abs(values.sum)) {
      throw new Error(`the daily partials (${kind}) do not match the values: ${JSON.stringify(partial)} vs ${JSON.stringify(values)}`);
    }
  }
}

async function someSessions(count) {
  const step = Math.max(1, Math.floor(VALUES / count));
  return Array.from({ length: Math.min(count, VALUES) }, (_, i) => `ss_bench_${i * step}`);
}
