// Benchmark: file search at scale, through the gateway. Run with `npm run build && npm run
// bench:files`. About 80 minutes on 2 cores at a load average of 20 (seeding 9, the page-100 walk
// about 25); BENCH_QUICK=1: a few.
//
// Seed (SQL, into the platform's own PostgreSQL): 100,000 datasets (BENCH_DATASETS) arriving one
// after another over a year, each with its files created with it (grouped in time, as real uploads
// are): 1 to 19 files each, about 1,000,000 (BENCH_FILES_PER_DATASET sets the mean), plus one old
// dataset of 20,000 files that every newer file follows. Nine datasets in ten belong to the bench
// org, the rest to three other orgs created through the API, each with its own token. Metadata
// with a robot's cardinalities: `robot` (50 values, one per dataset), `run` (one per dataset),
// `sensor.model` (5), `quality`, `calibrated`; a tenth of the files tagged; one in 997 pending.
//
// Then, through the gateway: p50/p99 of file searches one request at a time (page 100); "files of
// one dataset, newest first"; a whole result paged through with `next_token` at page 1,000 (the
// client SDK's default) and 100, first pages against the last; 16 concurrent callers from two
// orgs; the same searches without the indexes of migrations 0008 and 0003, to show what they buy;
// the platform's memory idle, after the load and after a quiet minute. The anchors (bare Node HTTP,
// Node+pg) run against the same PostgreSQL in the same run.
import pgModule from "pg";
import { measureAnchors, reportAnchors } from "./anchor-figures.mjs";
import { closedLoop, cpuSnapshot, cpuSpent, memorySnapshot, percentile } from "./lib.mjs";
import { reportMemoryAfterLoad, sequential, walkPages } from "./measure.mjs";
import { createTenant, startBenchPlatform } from "./platform.mjs";
import { createReport, sized } from "./report.mjs";

const DATASETS = Number(process.env.BENCH_DATASETS ?? sized(100_000, 2_000));
const FILES_PER_DATASET = Number(process.env.BENCH_FILES_PER_DATASET ?? 10);
const BIG_DATASET_FILES = sized(20_000, 2_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? sized(200, 30));
const CONCURRENCY = 16;
const LOOP_MS = sized(10_000, 3_000);
const GOAL_P50_MS = 50;

const report = createReport("files");
const platform = await startBenchPlatform();
const db = new pgModule.Client({ connectionString: platform.pgUrl });
await db.connect();
try {
  const idle = memorySnapshot(platform.child.pid);
  const tenants = [await createTenant(platform.api, "files-a"), await createTenant(platform.api, "files-b"), await createTenant(platform.api, "files-c")];
  await seed(platform.orgId, tenants.map((tenant) => tenant.orgId));
  const anchors = await measureAnchors(platform.pgUrl);
  reportAnchors(report, anchors);
  const cases = searchCases();
  for (const c of cases) await report.attempt(c.name, async () => addLatency(c.name, await sequential(c.call, c.requests ?? REQUESTS), anchors.pg.p50, c.context ? undefined : GOAL_P50_MS));
  await report.attempt("the old big dataset", () => benchBigDataset(anchors.pg.p50));
  await report.attempt("whole result, page 1,000", () => benchWholeResult(1000));
  await report.attempt("whole result, page 100", () => benchWholeResult(100));
  await report.attempt("concurrent searches", () => benchConcurrent(cases, tenants[0], anchors.pg.rps));
  await report.attempt("without indexes", () => withoutIndexes(cases));
  await reportMemoryAfterLoad(report, platform.child.pid, idle);
} finally {
  await db.end();
  await platform.stop();
}
report.print();

/** One latency figure: p50 against the goal and the Node+pg anchor, p99 beside it. */
function addLatency(name, result, anchorMs, goalMs) {
  report.add(`${name}: p50`, result.p50, "ms", { goal: goalMs === undefined ? undefined : { max: goalMs }, anchor: { name: "Node+pg p50", value: anchorMs } });
  report.add(`${name}: p99`, result.p99, "ms");
}

/**
 * The seed described at the top, in two statements. Dataset k is created at hour-ish k of the
 * year and its files in the seconds after it, so one dataset's files are a thin slice of the org's
 * (org, created) order, as with real uploads.
 */
async function seed(orgId, otherOrgIds) {
  const started = performance.now();
  await db.query(
    `insert into data.datasets (dataset_id, org_id, name, description, device_id, metadata, tags, created, created_by, modified, modified_by)
     select 'ds_bench_' || k, case when k % 10 = 0 and k > 0 then ($2::text[])[(k / 10) % 3 + 1] else $1 end,
            'bench-' || k, 'benchmark dataset ' || k, 'robot-' || (k % 50),
            jsonb_build_object('site', (array['lab-north', 'lab-south', 'field', 'warehouse'])[k % 4 + 1], 'vehicle', 'v' || (k % 10), 'robot', 'r-' || (k % 50)),
            case when k % 5 = 0 then array['outdoor'] else array['indoor'] end,
            timestamptz '2025-01-01' + k * (interval '1 year' / $3::int), 'bench', timestamptz '2025-01-01' + k * (interval '1 year' / $3::int), 'bench'
     from generate_series(0, $3::int) k`,
    [orgId, otherOrgIds, DATASETS],
  );
  await db.query(
    `insert into data.fs_nodes (node_id, org_id, association_id, association_type, fs_type, name, relative_path, status, size, uri,
                                device_id, metadata, tags, origination, created, created_by, modified, modified_by)
     select 'fl_' || k || '_' || j, d.org_id, d.dataset_id, 'dataset', 'file', split_part(path, '/', -1), path,
            case when (k * 31 + j) % 997 = 0 then 'pending' else 'available' end,
            abs(h) % 50000000, 's3://bench/' || d.dataset_id || '/' || path, d.device_id,
            case j % 3
              when 0 then jsonb_build_object('robot', 'r-' || (k % 50), 'run', k, 'quality', (abs(h) % 100) / 100.0, 'calibrated', (abs(h) / 131) % 2 = 0)
              when 1 then jsonb_build_object('robot', 'r-' || (k % 50), 'run', k, 'sensor', jsonb_build_object('model', 'm' || (abs(h) / 7) % 5))
              else '{}'::jsonb end,
            case (abs(h) / 7) % 20 when 0 then array['reviewed'] when 1 then array['anomaly', 'reviewed'] else array[]::text[] end,
            'bench', d.created + j * interval '1 second', 'bench', d.created + j * interval '1 second', 'bench'
     from (select d.*, substr(d.dataset_id, 10)::int as k from data.datasets d where d.dataset_id like 'ds_bench_%') d
     cross join lateral (
       select j, hashint4(j * 100003 + d.k) as h,
              case j % 7
                when 0 then 'logs/run_' || d.k || '/telemetry_' || j || '.csv'
                when 1 then 'bags/run_' || d.k || '/session_' || j || '.mcap'
                when 5 then 'lidar/run_' || d.k || '/sweep_' || lpad(j::text, 5, '0') || '.parquet'
                when 6 then 'meta/run_' || d.k || '/info_' || j || '.json'
                else 'camera/front/run_' || d.k || '/frame_' || lpad(j::text, 5, '0') || '.jpg'
              end as path
       from generate_series(1, case when d.k = 0 then $1::int else 1 + abs(hashint4(d.k)) % (2 * $2::int - 1) end) j
     ) f`,
    [BIG_DATASET_FILES, FILES_PER_DATASET],
  );
  const files = Number((await db.query("select count(*) from data.fs_nodes")).rows[0].count);
  await db.query("analyze data.datasets");
  await db.query("analyze data.fs_nodes");
  console.log(`seed: ${DATASETS + 1} datasets, ${files} files (every index maintained, durability as npm start) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  report.add("seeded file records (all orgs)", files, "files");
  report.add("seeded datasets (all orgs)", DATASETS + 1, "datasets");
}

/** A dataset of the bench org other than the big one (k % 10 != 0), spread over the year. */
function benchDataset(n) {
  const k = 1 + ((n * 7919) % (DATASETS - 1));
  return `ds_bench_${k % 10 === 0 ? k + 1 : k}`;
}

/**
 * The searches measured one request at a time. `indexed` and `without` mark those measured again
 * without migration 0003's and 0008's indexes; `context` marks figures without a goal (exact counts).
 */
function searchCases() {
  let n = 0;
  const next = () => n++;
  const query = (spec) => platform.api("POST", "/v1/files/query", { limit: 100, ...spec });
  const cond = (field, comparator, value) => ({ field, comparator, value });
  const slow = Math.min(REQUESTS, 50);
  return [
    { name: "query_files, files of one dataset, newest first (dataset_id = ds_N)", without: "0008", call: () => query({ condition: cond("dataset_id", "EQUALS", benchDataset(next())) }) },
    { name: "query_files, no condition, newest first", call: () => query({}) },
    { name: "query_files, metadata.robot = r-N (1 in 50), newest first", indexed: true, call: () => query({ condition: cond("metadata.robot", "EQUALS", `r-${next() % 50}`) }) },
    { name: "query_files, metadata.run = N (one dataset's), newest first", indexed: true, call: () => query({ condition: cond("metadata.run", "EQUALS", Number(benchDataset(next()).slice(9))) }) },
    { name: "query_files, path LIKE %.mcap, newest first", indexed: true, call: () => query({ condition: cond("path", "LIKE", "%.mcap") }) },
    { name: "query_files, path CONTAINS run_N/ (one dataset's)", indexed: true, call: () => query({ condition: cond("relative_path", "CONTAINS", `run_${benchDataset(next()).slice(9)}/`) }) },
    { name: "query_files, tags CONTAINS reviewed AND metadata.calibrated = true", indexed: true, call: () => query({ condition: { operator: "AND", conditions: [cond("tags", "CONTAINS", "reviewed"), cond("metadata.calibrated", "EQUALS", true)] } }) },
    { name: "query_files, dataset.name = bench-N, newest first", call: () => query({ condition: cond("dataset.name", "EQUALS", `bench-${benchDataset(next()).slice(9)}`) }) },
    { name: "query_files, dataset.metadata.site = field AND metadata.robot = r-N", indexed: true, call: () => query({ condition: { operator: "AND", conditions: [cond("dataset.metadata.site", "EQUALS", "field"), cond("metadata.robot", "EQUALS", `r-${next() % 50}`)] } }) },
    { name: "query_files, metadata.robot = r-N, name ascending", indexed: true, call: () => query({ condition: cond("metadata.robot", "EQUALS", `r-${next() % 50}`), sort_by: "name", sort_direction: "ASC" }) },
    { name: "query_dataset_files, include *.csv, path ascending", call: () => platform.api("POST", `/v1/datasets/${benchDataset(next())}/files/query`, { include_patterns: ["*.csv"], limit: 100 }) },
    { name: "count_files, metadata.robot = r-N (exact count)", indexed: true, context: true, requests: slow, call: () => platform.api("POST", "/v1/files/query/count", { condition: cond("metadata.robot", "EQUALS", `r-${next() % 50}`) }) },
    { name: "count_files, no condition (exact count)", context: true, requests: slow, call: () => platform.api("POST", "/v1/files/query/count", {}) },
  ];
}

/** The old 20,000-file dataset that every newer file follows: its newest page, and a page deep into it. */
async function benchBigDataset(anchorMs) {
  const query = (after) => platform.api("POST", "/v1/files/query", { limit: 100, condition: { field: "dataset_id", comparator: "EQUALS", value: "ds_bench_0" }, ...(after ? { after } : {}) });
  const walk = await walkPages(query);
  const label = `query_files, the old ${BIG_DATASET_FILES.toLocaleString("en-US")}-file dataset newest first, page 100`;
  report.add(`${label}: pages 1-5 (median)`, walk.first, "ms", { goal: { max: GOAL_P50_MS }, anchor: { name: "Node+pg p50", value: anchorMs } });
  report.add(`${label}: pages ${walk.pages - 4}-${walk.pages} ÷ pages 1-5 by next_token`, walk.last / walk.first, "×", { goal: { max: 2 } });
}

/** The bench org's whole file list, newest first, paged through with next_token at `limit` per page. */
async function benchWholeResult(limit) {
  const walk = await walkPages((after) => platform.api("POST", "/v1/files/query", { limit, ...(after ? { after } : {}) }));
  const label = `query_files, whole result (${walk.rows.toLocaleString("en-US")} files) by next_token, page ${limit.toLocaleString("en-US")}`;
  report.add(`${label}: pages 1-5 (median)`, walk.first, "ms");
  report.add(`${label}: pages ${walk.pages - 4}-${walk.pages} (median)`, walk.last, "ms");
  report.add(`${label}: last pages ÷ first pages`, walk.last / walk.first, "×", { goal: { max: 2 } });
  report.add(`${label}: the whole walk, files/s`, (walk.rows * 1000) / walk.ms, "files/s");
}

/**
 * CONCURRENCY callers back to back for LOOP_MS, half as the bench org's admin and half as another
 * org's member with its own token, each cycling through the page-100 searches; with the CPU each
 * part of the benchmark (only its own processes) spent per request.
 */
async function benchConcurrent(cases, tenant, anchorRps) {
  const searches = cases.filter((c) => !c.context);
  const other = platform.apiAs(tenant.token);
  let n = 0;
  const calls = [
    () => searches[n++ % searches.length].call(),
    () => other("POST", "/v1/files/query", { limit: 100, condition: { field: "metadata.robot", comparator: "EQUALS", value: `r-${n++ % 50}` } }),
  ];
  let turn = 0;
  const before = cpuSnapshot(platform.child.pid);
  const loop = await closedLoop(() => calls[turn++ % 2](), LOOP_MS, CONCURRENCY);
  const cpu = cpuSpent(before, cpuSnapshot(platform.child.pid), loop.latencies.length);
  const rps = (loop.latencies.length * 1000) / loop.elapsed;
  const label = `searches from ${CONCURRENCY} callers in 2 orgs with their own tokens`;
  report.add(`${label}: throughput`, rps, "req/s", { anchor: { name: "Node+pg req/s", value: anchorRps } });
  report.add(`${label}: p50`, percentile(loop.latencies, 50), "ms");
  report.add(`${label}: p99`, percentile(loop.latencies, 99), "ms");
  if (loop.errors > 0) report.add(`${label}: failed requests`, loop.errors, "requests", { goal: { max: 0 } });
  report.add(`${label}: CPU per request, platform process (gateway + services + helper threads)`, cpu.gateway + cpu.services + cpu.helpers, "µs");
  report.add(`${label}: CPU per request, its PostgreSQL`, cpu.postgres, "µs");
  report.add(`${label}: CPU per request, the load generator`, cpu.client, "µs");
}

/**
 * What the indexes buy: "files of one dataset" without migration 0008's (association, created)
 * index, then the metadata, tags and path searches without migration 0003's GIN and trigram
 * indexes. Context, not goals (a handful of requests each).
 */
async function withoutIndexes(cases) {
  const few = Math.min(REQUESTS, 10);
  await db.query("drop index data.fs_nodes_assoc_created_idx");
  for (const c of cases.filter((c) => c.without === "0008")) report.add(`without migration 0008's index: ${c.name}: p50`, (await sequential(c.call, few)).p50, "ms");
  await db.query("drop index if exists data.fs_nodes_metadata_idx, data.fs_nodes_tags_idx, data.fs_nodes_path_trgm_idx");
  for (const c of cases.filter((c) => c.indexed)) report.add(`without migration 0003's indexes: ${c.name}: p50`, (await sequential(c.call, few)).p50, "ms");
}
