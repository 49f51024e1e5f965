// Where the platform thread's CPU goes per `get_dataset` through the gateway, and how many table
// reads each request costs. Run with `npm run bench:cpu-layers` after `npm run build` (Linux, needs
// `perf`). Not part of `npm run bench`: it prints attributions, not figures with goals.
//
// Why `perf` and not `--cpu-prof`: V8's profiler samples wall time, so on a loaded machine the time
// the thread waits for a CPU after a `writev` that woke PostgreSQL or the client is charged to that
// `writev` (39% of one such profile). `perf record` samples the thread only while it runs; with
// `--perf-basic-prof` it names the JIT-compiled JavaScript frames. Each sample is charged to the
// innermost frame of its stack that belongs to a known layer (LAYERS, first match wins).
//
// Table reads: `pg_stat_user_tables` (sequential plus index scans) before and after BENCH_READS
// requests one at a time; PostgreSQL flushes these counters lazily, so a figure can fall short of
// the truth by a few per cent, never exceed it.
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { cpuPerRequest, ownCpuSnapshot } from "./anchors.mjs";
import { startBenchPlatform } from "./platform.mjs";
import { closedLoop, createLeanHttpClient } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { Client } = require("pg");

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const PROFILE_S = Number(process.env.BENCH_PROFILE_S ?? 8);
const READS = Number(process.env.BENCH_READS ?? 500);
/** The layers a sample is charged to, by the source of a stack frame; the first that matches wins. */
const LAYERS = [
  ["GC on the thread", /Scavenge|Heap::|MarkCompact|GCTracer|Sweeper|Evacuat/],
  ["protobuf (@bufbuild/protobuf)", /@bufbuild\/protobuf/],
  ["pg driver", /node_modules\/pg(-protocol)?\//],
  ["knex and tarn (the pool)", /node_modules\/(knex|tarn)\//],
  ["MikroORM", /@mikro-orm/],
  ["OpenTelemetry", /@opentelemetry/],
  ["gateway: transcoding", /gateway\/dist\/transcode/],
  ["gateway: auth", /gateway\/dist\/auth/],
  ["gateway: routing, headers, in-process client, metrics", /gateway\/dist\//],
  ["data service: rpc, domain, store", /services\/data\/dist/],
  ["shared: db (prepared reads, unit of work)", /services\/shared\/dist\/db/],
  ["shared: rpc server, interceptors, metrics", /services\/shared\/dist\//],
  ["Headers (undici)", /undici/],
  ["AbortSignal, EventTarget, events", /event_target|abort_controller|node:events/],
  ["timers", /node:internal\/timers|node:timers/],
  ["node:http server and response", /node:_http|llhttp|http_parser/],
  ["sockets and streams (syscalls included)", /node:internal\/streams|node:net|stream_base_commons|LibuvStreamWrap/],
  ["promises and microtasks", /task_queues|RunMicrotasks/],
];

const perfDir = await mkdtemp(path.join(tmpdir(), "hangar-perf-"));
// Names the JIT-compiled frames for perf (/tmp/perf-<pid>.map, removed at the end); V8's own log,
// which the flag turns on, goes to the temporary directory rather than the working one.
process.env.BENCH_NODE_ARGS = `${process.env.BENCH_NODE_ARGS ?? ""} --perf-basic-prof --no-logfile-per-isolate --logfile=${path.join(perfDir, "v8.log")}`;
const platform = await startBenchPlatform({ AUTH_CACHE_TTL_MS: "2000" });
const client = createLeanHttpClient(platform.gateway, CONCURRENCY);
try {
  console.log(`load average before: ${loadavg()[0].toFixed(2)}`);
  const dataset = (await platform.api("POST", "/v1/datasets", { name: "bench", metadata: { a: 1 } })).data;
  const get = async () => {
    const res = await client.request("GET", `/v1/datasets/${dataset.dataset_id}`, { authorization: `Bearer ${platform.token}` });
    if (res.status !== 200) throw new Error(`get_dataset: ${res.status}`);
  };
  await printTableReads(get);
  await closedLoop(get, 3_000, CONCURRENCY);
  await printLayers(get, path.join(perfDir, "perf.data"));
  console.log(`load average after: ${loadavg()[0].toFixed(2)}`);
} finally {
  client.close();
  await platform.stop();
  await rm(perfDir, { recursive: true, force: true });
  await rm(`/tmp/perf-${platform.child.pid}.map`, { force: true });
}

/** Table reads per request, by table, over READS sequential `get`s (background tasks included: they show as their own tables). */
async function printTableReads(get) {
  const pg = new Client({ connectionString: platform.pgUrl });
  await pg.connect();
  const snapshot = async () =>
    new Map((await pg.query("select schemaname || '.' || relname as t, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as n from pg_stat_user_tables")).rows.map((r) => [r.t, Number(r.n)]));
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const before = await snapshot();
  for (let i = 0; i < READS; i++) await get();
  await new Promise((resolve) => setTimeout(resolve, 1_500)); // the backends' counters reach the shared statistics
  const after = await snapshot();
  await pg.end();
  const perRequest = [...after].map(([table, n]) => [table, (n - (before.get(table) ?? 0)) / READS]).filter(([, n]) => n >= 0.01);
  console.log(`\ntable reads per get_dataset (${READS} requests one at a time, background tasks included):`);
  for (const [table, n] of perRequest.sort((a, b) => b[1] - a[1])) console.log(`  ${table.padEnd(32)} ${n.toFixed(3)}`);
}

/** Profiles the platform's main thread under the closed loop and prints its on-CPU share by layer. */
async function printLayers(get, file) {
  const pid = String(platform.child.pid);
  const perf = spawn("perf", ["record", "-q", "-F", "1999", "-g", "-t", pid, "-o", file, "--", "sleep", String(PROFILE_S)], { stdio: "inherit" });
  const cpuOf = () => ownCpuSnapshot({ platformPid: platform.child.pid, postmasterPid: platform.postmasterPid });
  const before = cpuOf();
  const run = await closedLoop(get, PROFILE_S * 1000, CONCURRENCY);
  const cpu = cpuPerRequest(before, cpuOf(), run.latencies.length);
  await new Promise((resolve) => perf.once("exit", resolve));
  const script = spawnSync("perf", ["script", "-i", file, "-F", "ip,sym"], { encoding: "utf8", maxBuffer: 1 << 30 });
  const counts = new Map();
  let samples = 0;
  for (const stack of script.stdout.split(/\n\s*\n/)) {
    const frames = stack.split("\n").filter((line) => line.trim());
    if (frames.length === 0) continue;
    samples++;
    const layer = frames.map((frame) => LAYERS.find(([, pattern]) => pattern.test(frame))?.[0]).find(Boolean) ?? "other (kernel, V8 runtime, libc)";
    counts.set(layer, (counts.get(layer) ?? 0) + 1);
  }
  const rps = (run.latencies.length / run.elapsed) * 1000;
  console.log(`\nplatform thread on-CPU by layer, get_dataset through the gateway, ${CONCURRENCY} callers, ${rps.toFixed(0)} req/s, ${samples} samples:`);
  console.log(`  (CPU per request, µs: platform thread ${cpu.platform.toFixed(0)}, its helper threads ${cpu.helpers.toFixed(0)}, PostgreSQL ${cpu.postgres.toFixed(0)})`);
  for (const [layer, n] of [...counts].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${((100 * n) / samples).toFixed(1).padStart(5)}%  ${(((cpu.platform * n) / samples)).toFixed(0).padStart(4)} µs  ${layer}`);
  }
}
