// Benchmark: files at scale, through the gateway. Run with `node bench/files.mjs` after `npm run build`
// (`npx node bench/files.mjs` runs it on the repository's Node 24). About 4 minutes on 2 cores.
//
// 1. Upload: 1,000 small files in one batch transaction as the client SDK does it (begin, credentials,
//    PUT each object to the embedded S3-compatible store at concurrency 16, complete); prints files/s.
// 2. Search: 1,000,000 file records inserted with SQL (100 datasets of the bench org, 3 other orgs
//    holding a tenth), then p50/p99 of query_files (filtered, sorted first pages), count_files and
//    query_dataset_files, one request at a time. Finally the same queries once more without the
//    file-search indexes (migration 0003), to show what they buy.
//
// The platform runs as `npm start` runs it (one process, embedded default) against a real
// PostgreSQL; this process only generates load. Environment: BENCH_FILES (default 1000000),
// BENCH_REQUESTS (default 200 per case).
import http from "node:http";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { startPostgres } from "../test/src/postgres.mjs";
import { freePort } from "../test/src/ports.mjs";
import { httpJson, percentile, s3ClientFor, startPlatformProcess, stopPlatformProcess } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { PutObjectCommand } = require("@aws-sdk/client-s3");
const { Client } = require("pg");

const FILES = Number(process.env.BENCH_FILES ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const UPLOAD_FILES = 1000;
const UPLOAD_CONCURRENCY = 16;
const DATASETS = 100;
// count_files counts every match (hundreds of milliseconds for the broad cases): fewer requests.
const SLOW_REQUESTS = Math.min(REQUESTS, 50);

const pg = await startPostgres();
const dataDir = await mkdtemp(path.join(tmpdir(), "hangar-bench-"));
const token = `hgr_bench_${randomBytes(16).toString("hex")}`;
const port = await freePort();
const env = { DATABASE_URL: pg.url, PORT: String(port), BOOTSTRAP_TOKEN: token, LOG_LEVEL: "warn", DATA_DIR: dataDir, OBJECT_STORE_PORT: String(await freePort()) };
const platform = await startPlatformProcess(env);
const db = new Client({ connectionString: pg.url });
await db.connect();
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const api = (method, route, body) => httpJson(agent, method, `http://127.0.0.1:${port}${route}`, token, body);
try {
  const orgId = (await api("GET", "/v1/orgs/caller")).data[0].org_id;
  await benchUpload();
  await seedFiles(orgId);
  const cases = searchCases();
  console.log(`\nsearch at ${(FILES / 1e6).toFixed(2)}M file records (${REQUESTS} requests per case, one at a time, limit 100; target: p50 under 50 ms for query_files):`);
  for (const c of cases) report(c.name, await measure(c.call, c.requests ?? REQUESTS));
  await explainCount(orgId);
  await benchPaging();
  console.log("\nthe same without the file-search indexes of migration 0003 (metadata GIN, tags GIN, path trigram):");
  await db.query("drop index if exists data.fs_nodes_metadata_idx, data.fs_nodes_tags_idx, data.fs_nodes_path_trgm_idx");
  for (const c of cases.filter((c) => c.indexed)) report(c.name, await measure(c.call, Math.min(REQUESTS, 20)));
} finally {
  agent.destroy();
  await db.end();
  await stopPlatformProcess(platform);
  await pg.stop();
  await rm(dataDir, { recursive: true, force: true });
}

/** Part 1: one batch transaction of UPLOAD_FILES small files, end to end. */
async function benchUpload() {
  const dataset = (await api("POST", "/v1/datasets", { name: "upload-bench" })).data;
  const manifest = Object.fromEntries(Array.from({ length: UPLOAD_FILES }, (_, i) => [`run/cam${i % 4}/frame_${String(i).padStart(4, "0")}.bin`, 256 + (i % 64)]));
  const started = performance.now();
  const begun = (await api("POST", "/v1/files/upload", { association: { association_id: dataset.dataset_id, association_type: "dataset" }, origination: "bench", resource_manifest: manifest })).data;
  const creds = (await api("GET", `/v1/files/upload/${begun.transaction_id}/credentials`)).data[0];
  const s3 = s3ClientFor(creds);
  const queue = Object.entries(manifest);
  const put = async () => {
    for (let next = queue.pop(); next; next = queue.pop()) {
      const [filePath, size] = next;
      const key = begun.upload_mappings[filePath].replace(/^s3:\/\/[^/]+\//, "");
      await s3.send(new PutObjectCommand({ Bucket: creds.bucket, Key: key, Body: randomBytes(size) }));
    }
  };
  await Promise.all(Array.from({ length: UPLOAD_CONCURRENCY }, put));
  const uploaded = performance.now();
  await api("PUT", `/v1/files/upload/${begun.transaction_id}/complete`);
  const seconds = (performance.now() - started) / 1000;
  s3.destroy();
  const listed = (await api("POST", `/v1/datasets/${dataset.dataset_id}/files/query`, { limit: 1 })).data.total_count;
  if (listed !== UPLOAD_FILES) throw new Error(`expected ${UPLOAD_FILES} uploaded files, found ${listed}`);
  console.log(
    `upload: ${UPLOAD_FILES} files in one transaction in ${seconds.toFixed(2)} s (target: under 10 s) = ${(UPLOAD_FILES / seconds).toFixed(0)} files/s` +
      ` (PUTs ${((uploaded - started) / 1000).toFixed(2)} s at concurrency ${UPLOAD_CONCURRENCY}, complete ${((performance.now() - uploaded) / 1000).toFixed(2)} s)`,
  );
}

/**
 * Part 2's data: DATASETS datasets of the bench org and two for each of three other orgs, then
 * FILES file records. Nine in ten belong to the bench org, in runs of nine per dataset; paths
 * follow a robot's layout (camera frames, logs, bags, lidar sweeps, run metadata), `created`
 * spreads over a year in insertion order, a third of the files carry metadata (robot, run,
 * quality, calibration or a sensor model), a tenth carry tags, and one in 997 is still pending.
 */
async function seedFiles(orgId) {
  let started = performance.now();
  await db.query(
    `insert into data.datasets (dataset_id, org_id, name, description, device_id, metadata, tags, created, created_by, modified, modified_by)
     select 'ds_bench_' || lpad(k::text, 3, '0'), case when k < $2 then $1 else 'org_other_' || ((k - $2) / 2) end,
            'bench-' || k, 'benchmark dataset ' || k, 'robot-' || (k % 50),
            jsonb_build_object('site', (array['lab-north', 'lab-south', 'field', 'warehouse'])[k % 4 + 1], 'vehicle', 'v' || (k % 10)),
            case when k % 5 = 0 then array['outdoor'] else array['indoor'] end,
            timestamptz '2025-01-01' + k * interval '1 hour', 'bench', timestamptz '2025-01-01' + k * interval '1 hour', 'bench'
     from generate_series(0, $2 + 5) k`,
    [orgId, DATASETS],
  );
  await db.query(
    `insert into data.fs_nodes (node_id, org_id, association_id, association_type, fs_type, name, relative_path, status, size, uri,
                                device_id, metadata, tags, origination, created, created_by, modified, modified_by)
     select 'fl_' || lpad(to_hex(i), 8, '0'), org_id, ds, 'dataset', 'file', split_part(path, '/', -1), path,
            case when i % 997 = 0 then 'pending' else 'available' end,
            abs(h) % 50000000, 's3://bench/' || ds || '/' || path, 'robot-' || (i / 7) % 50,
            case i % 3
              when 0 then jsonb_build_object('robot', 'r-' || (i / 7) % 50, 'run', i / 1000, 'quality', (abs(h) % 100) / 100.0, 'calibrated', (abs(h) / 131) % 2 = 0)
              when 1 then jsonb_build_object('robot', 'r-' || (i / 7) % 50, 'sensor', jsonb_build_object('model', 'm' || i % 5))
              else '{}'::jsonb end,
            case (abs(h) / 7) % 20 when 0 then array['reviewed'] when 1 then array['anomaly', 'reviewed'] when 2 then array['training'] else array[]::text[] end,
            'bench', created, 'bench', created, 'bench'
     from (
       select i, h,
              case when i % 10 = 0 then 'org_other_' || (i / 10) % 3 else $1 end as org_id,
              case when i % 10 = 0 then 'ds_bench_' || ($3::int + ((i / 10) % 3) * 2 + (i / 30) % 2)
                   else 'ds_bench_' || lpad(((i / 10) % $3::int)::text, 3, '0') end as ds,
              timestamptz '2025-01-01' + i * (interval '1 year' / $2::int) + (abs(h) % 600) * interval '1 second' as created,
              case i % 7
                when 0 then 'logs/run_' || lpad((i / 1000)::text, 4, '0') || '/telemetry_' || i || '.csv'
                when 1 then 'bags/run_' || lpad((i / 1000)::text, 4, '0') || '/session_' || i || '.mcap'
                when 5 then 'lidar/run_' || lpad((i / 1000)::text, 4, '0') || '/sweep_' || i || '.parquet'
                when 6 then 'meta/run_' || lpad((i / 1000)::text, 4, '0') || '/info_' || i || '.json'
                else 'camera/front/run_' || lpad((i / 1000)::text, 4, '0') || '/frame_' || lpad(i::text, 7, '0') || '.jpg'
              end as path
       from (select i, hashint4(i) as h from generate_series(1, $2::int) i) s
     ) g`,
    [orgId, FILES, DATASETS],
  );
  const inserted = (performance.now() - started) / 1000;
  started = performance.now();
  await db.query("analyze data.datasets");
  await db.query("analyze data.fs_nodes");
  console.log(`seed: ${FILES} file records inserted in ${inserted.toFixed(1)} s (with every index maintained), analyzed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** The measured requests; `indexed` marks the ones that are measured again without the 0003 indexes. */
function searchCases() {
  let n = 0;
  const next = () => n++;
  const query = (spec) => api("POST", "/v1/files/query", { limit: 100, ...spec });
  const cond = (field, comparator, value) => ({ field, comparator, value });
  return [
    { name: "query_files  no condition, created DESC", call: () => query({}) },
    { name: "query_files  metadata.robot = r-N, created DESC", indexed: true, call: () => query({ condition: cond("metadata.robot", "EQUALS", `r-${next() % 50}`) }) },
    { name: "query_files  metadata.run = N (rare), created DESC", indexed: true, call: () => query({ condition: cond("metadata.run", "EQUALS", (next() * 37) % 1000) }) },
    { name: "query_files  path LIKE %.mcap, created DESC", indexed: true, call: () => query({ condition: cond("path", "LIKE", "%.mcap") }) },
    { name: "query_files  path CONTAINS run_NNNN/ (rare)", indexed: true, call: () => query({ condition: cond("relative_path", "CONTAINS", `run_${String((next() * 37) % 1000).padStart(4, "0")}/`) }) },
    {
      name: "query_files  tags CONTAINS reviewed AND metadata.calibrated = true",
      indexed: true,
      call: () => query({ condition: { operator: "AND", conditions: [cond("tags", "CONTAINS", "reviewed"), cond("metadata.calibrated", "EQUALS", true)] } }),
    },
    { name: "query_files  dataset.name = bench-N, created DESC", call: () => query({ condition: cond("dataset.name", "EQUALS", `bench-${next() % DATASETS}`) }) },
    { name: "query_files  dataset.metadata.site = field AND metadata.robot = r-N", indexed: true, call: () => query({ condition: { operator: "AND", conditions: [cond("dataset.metadata.site", "EQUALS", "field"), cond("metadata.robot", "EQUALS", `r-${next() % 50}`)] } }) },
    { name: "query_files  metadata.robot = r-N, sort name ASC", indexed: true, call: () => query({ condition: cond("metadata.robot", "EQUALS", `r-${next() % 50}`), sort_by: "name", sort_direction: "ASC" }) },
    { name: "count_files  metadata.robot = r-N (exact)", indexed: true, requests: SLOW_REQUESTS, call: () => api("POST", "/v1/files/query/count", { condition: cond("metadata.robot", "EQUALS", `r-${next() % 50}`) }) },
    { name: "count_files  path LIKE %.mcap (exact)", requests: SLOW_REQUESTS, call: () => api("POST", "/v1/files/query/count", { condition: cond("path", "LIKE", "%.mcap") }) },
    { name: "count_files  no condition (exact)", requests: SLOW_REQUESTS, call: () => api("POST", "/v1/files/query/count", {}) },
    {
      name: "query_dataset_files  include *.csv, path ASC",
      call: () => api("POST", `/v1/datasets/ds_bench_${String(next() % DATASETS).padStart(3, "0")}/files/query`, { include_patterns: ["*.csv"], limit: 100 }),
    },
    {
      name: "query_dataset_files  include logs/**, exclude *.json",
      call: () => api("POST", `/v1/datasets/ds_bench_${String(next() % DATASETS).padStart(3, "0")}/files/query`, { include_patterns: ["logs/**"], exclude_patterns: ["*.json"], limit: 100 }),
    },
  ];
}

/** What an uncapped total_count would cost against the bounded steps: the broad `.mcap` condition, in the database alone. */
async function explainCount(orgId) {
  const where = "f.org_id = $1 and f.status = 'available' and f.fs_type = 'file' and f.relative_path like '%.mcap'";
  const time = async (sqlText) => {
    const plan = await db.query(`explain (analyze, format json) ${sqlText}`, [orgId]);
    return plan.rows[0]["QUERY PLAN"][0]["Execution Time"];
  };
  const exact = await time(`select count(*) from data.fs_nodes f where ${where}`);
  const capped = await time(`select f.node_id from data.fs_nodes f where ${where} limit 1001`);
  const started = performance.now();
  await db.query(`explain (format json) select 1 from data.fs_nodes f where ${where}`, [orgId]);
  const estimate = performance.now() - started;
  console.log(`total_count of path LIKE %.mcap in PostgreSQL alone: exact count(*) ${exact.toFixed(1)} ms; ids up to 1,001 ${capped.toFixed(1)} ms;` +
    ` the planner's estimate query_files now asks first (a broad condition is then not counted) ${estimate.toFixed(1)} ms round trip`);
}

/**
 * Deep paging: follows next_token through query_files (100 pages of 1,000, no condition; 30 pages
 * of 100 with a metadata condition) and prints the latency of the first pages against the last.
 * Keyset tokens make them alike; offsets made each page cost more than the one before.
 */
async function benchPaging() {
  console.log("\npaging query_files with next_token (keyset), latency of early and late pages:");
  const cases = [
    { name: "no condition, 1,000 per page, pages 1-5 vs 96-100", spec: { limit: 1000 }, pages: 100 },
    { name: "metadata.robot = r-1, 100 per page, pages 1-5 vs 26-30", spec: { limit: 100, condition: { field: "metadata.robot", comparator: "EQUALS", value: "r-1" } }, pages: 30 },
  ];
  for (const c of cases) {
    const latencies = [];
    let after;
    for (let page = 0; page < c.pages; page++) {
      const start = performance.now();
      const body = await api("POST", "/v1/files/query", { ...c.spec, ...(after ? { after } : {}) });
      latencies.push(performance.now() - start);
      after = body.data.next_token;
      if (!after) break;
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`  ${c.name.padEnd(60)} first ${median(latencies.slice(0, 5)).toFixed(1).padStart(7)} ms   last ${median(latencies.slice(-5)).toFixed(1).padStart(7)} ms   (${latencies.length} pages)`);
  }
}

/** Runs `call` `count` times one after the other, after a short warm-up; returns latency percentiles. */
async function measure(call, count) {
  for (let i = 0; i < Math.min(10, count); i++) await call();
  const latencies = [];
  let items = 0;
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const body = await call();
    latencies.push(performance.now() - start);
    items += Array.isArray(body.data?.items) ? body.data.items.length : 0;
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), n: count, items: items / count };
}

function report(name, r) {
  console.log(`  ${name.padEnd(72)} p50 ${r.p50.toFixed(1).padStart(7)} ms   p99 ${r.p99.toFixed(1).padStart(7)} ms   (${r.n} requests, ${r.items.toFixed(0)} items/page)`);
}
