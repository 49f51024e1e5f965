// Where the platform thread's CPU goes per `get_dataset` through the gateway, beside the same layers
// of the bare Node+pg anchor's thread under the same load (bench/anchors.mjs: node:http, a `pg` pool
// and a prepared SELECT of the same row), and how many table reads each request costs. A layer the
// anchor has too (sockets, node:http, pg) is the floor of any Node server doing this work; the rest
// is the platform's own. Run with `npm run bench:cpu-layers` after `npm run build` (Linux, needs
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
import { mainThreadCpuMs, startAnchor } from "./anchors.mjs";
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

const OTHER = "other (kernel, V8 runtime, libc)";

const perfDir = await mkdtemp(path.join(tmpdir(), "hangar-perf-"));
// Names the JIT-compiled frames for perf (/tmp/perf-<pid>.map, removed at the end); V8's own log,
// which the flag turns on, goes to the temporary directory rather than the working one.
const perfNodeArgs = ["--perf-basic-prof", "--no-logfile-per-isolate", `--logfile=${path.join(perfDir, "v8.log")}`];
process.env.BENCH_NODE_ARGS = `${process.env.BENCH_NODE_ARGS ?? ""} ${perfNodeArgs.join(" ")}`;
const platform = await startBenchPlatform({ AUTH_CACHE_TTL_MS: "2000" });
const anchor = await startAnchor("pg", { databaseUrl: platform.pgUrl, nodeArgs: perfNodeArgs });
const client = createLeanHttpClient(platform.gateway, CONCURRENCY);
const anchorClient = createLeanHttpClient(anchor.url, CONCURRENCY);
try {
  console.log(`load average before: ${loadavg()[0].toFixed(2)}`);
  const dataset = (await platform.api("POST", "/v1/datasets", { name: "bench", metadata: { a: 1 } })).data;
  const getThrough = (http, route, headers) => async () => {
    const res = await http.request("GET", route, headers);
    if (res.status !== 200) throw new Error(`GET ${route}: ${res.status}`);
  };
  const get = getThrough(client, `/v1/datasets/${dataset.dataset_id}`, { authorization: `Bearer ${platform.token}` });
  const getRow = getThrough(anchorClient, `/${dataset.dataset_id}`, {});
  await printTableReads(get);
  await closedLoop(get, 3_000, CONCURRENCY);
  const gateway = await profileThread(platform.child.pid, get, path.join(perfDir, "platform.data"));
  await closedLoop(getRow, 3_000, CONCURRENCY);
  const bare = await profileThread(anchor.pid, getRow, path.join(perfDir, "anchor.data"));
  printLayers(gateway, bare);
  console.log(`load average after: ${loadavg()[0].toFixed(2)}`);
} finally {
  client.close();
  anchorClient.close();
  await anchor.stop();
  await platform.stop();
  await rm(perfDir, { recursive: true, force: true });
  await rm(`/tmp/perf-${platform.child.pid}.map`, { force: true });
  await rm(`/tmp/perf-${anchor.pid}.map`, { force: true });
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

/**
 * Profiles one process's main thread under the closed loop of `get`: its on-CPU samples by layer
 * (each sample charged to the innermost frame of its stack that belongs to a known layer), its CPU
 * per request and the rate.
 */
async function profileThread(pid, get, file) {
  const perf = spawn("perf", ["record", "-q", "-F", "1999", "-g", "-t", String(pid), "-o", file, "--", "sleep", String(PROFILE_S)], { stdio: "inherit" });
  const cpuBefore = mainThreadCpuMs(pid);
  const run = await closedLoop(get, PROFILE_S * 1000, CONCURRENCY);
  const cpuUs = ((mainThreadCpuMs(pid) - cpuBefore) * 1000) / run.latencies.length;
  await new Promise((resolve) => perf.once("exit", resolve));
  const script = spawnSync("perf", ["script", "-i", file, "-F", "ip,sym"], { encoding: "utf8", maxBuffer: 1 << 30 });
  const counts = new Map();
  let samples = 0;
  for (const stack of script.stdout.split(/\n\s*\n/)) {
    const frames = stack.split("\n").filter((line) => line.trim());
    if (frames.length === 0) continue;
    samples++;
    const layer = frames.map((frame) => LAYERS.find(([, pattern]) => pattern.test(frame))?.[0]).find(Boolean) ?? OTHER;
    counts.set(layer, (counts.get(layer) ?? 0) + 1);
  }
  return { counts, samples, cpuUs, rps: (run.latencies.length / run.elapsed) * 1000 };
}

/** The platform thread's layers, largest first, each beside the anchor thread's figure for it. */
function printLayers(platformProfile, anchorProfile) {
  const usOf = (profile, layer) => (profile.cpuUs * (profile.counts.get(layer) ?? 0)) / profile.samples;
  console.log(`\nmain thread on-CPU by layer, ${CONCURRENCY} callers, CPU per request in µs:`);
  console.log(`  get_dataset through the gateway: ${platformProfile.rps.toFixed(0)} req/s, ${platformProfile.cpuUs.toFixed(0)} µs, ${platformProfile.samples} samples`);
  console.log(`  the Node+pg anchor, the same row: ${anchorProfile.rps.toFixed(0)} req/s, ${anchorProfile.cpuUs.toFixed(0)} µs, ${anchorProfile.samples} samples`);
  console.log(`  ${"platform".padStart(8)} ${"anchor".padStart(8)}  layer`);
  const layers = [...new Set([...platformProfile.counts.keys(), ...anchorProfile.counts.keys()])];
  for (const layer of layers.sort((a, b) => usOf(platformProfile, b) - usOf(platformProfile, a))) {
    const share = ((100 * (platformProfile.counts.get(layer) ?? 0)) / platformProfile.samples).toFixed(1);
    console.log(`  ${usOf(platformProfile, layer).toFixed(1).padStart(8)} ${usOf(anchorProfile, layer).toFixed(1).padStart(8)}  ${layer} (${share}% of the platform's)`);
  }
}
