// Benchmark: get_dataset through the gateway (HTTP JSON) against its anchors, bare Node (a fixed
// JSON body) and bare Node+pg (the same row by primary key through `pg`), and against the same RPC
// called directly over gRPC; create_dataset through the gateway against it called directly. All in
// one run, in alternating rounds. Run with `npm run bench` after `npm run build`.
//
// The platform runs as `npm start` runs it (one process, embedded default, its own embedded
// PostgreSQL with npm start's durability settings); the anchors are child processes against that
// same PostgreSQL; this process only generates load (one lean HTTP/1.1 client for the gateway and
// both anchors, the gateway's own gRPC client for the direct path), so all of them compete for the
// machine's cores as a client and a server would.
//
// The primary figures are the closed loop at saturation (BENCH_CONCURRENCY callers back to back);
// the open loop (requests started at a fixed rate whatever the answers take, as wrk2 does) is the
// secondary one: latency at a given load. Targets (issue 11), as ratios within the run:
//   - get_dataset through the gateway: at least 0.6 of the Node+pg anchor's throughput (goal 0.8);
//   - the gateway's p50 overhead over the direct call, closed loop: at most 25% (goal 15%).
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { randomBytes } from "node:crypto";
import { cpuPerRequest, ownCpuSnapshot, rssMiB, startAnchor } from "./anchors.mjs";
import { createReport } from "./report.mjs";
import { startBenchPlatform } from "./platform.mjs";
import { closedLoop, createLeanHttpClient, percentile } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { create } = require("@bufbuild/protobuf");
const { signPrincipal } = require("../services/shared/dist/auth/index.js");
const { DataService, GetDatasetRequestSchema, CreateDatasetRequestSchema } = require("../services/shared/dist/proto/data.js");
// The direct calls use the gateway's own gRPC client, so both sides pay the same client cost here.
const { createGrpcUnaryClient } = require("../gateway/dist/grpc-unary-client.js");

const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 2_000);
/** `BENCH_OPEN_LOOP=0` runs the closed loop only (on a loaded machine the open loop's rate may be out of reach and take minutes). */
const OPEN_LOOP = process.env.BENCH_OPEN_LOOP !== "0";
/**
 * The fixed request rates of the open-loop runs: get_dataset at 2,000/s (the figure the README's
 * earlier headline used), create_dataset at 500/s. Override with e.g.
 * `BENCH_RATES=get_dataset=1000,create_dataset=300`.
 */
const RATES = { get_dataset: 2_000, create_dataset: 500, ...Object.fromEntries((process.env.BENCH_RATES ?? "").split(",").filter(Boolean).map((pair) => pair.split("=")).map(([op, rate]) => [op, Number(rate)])) };
/** Issue 11's targets and goals. */
const TARGETS = {
  anchorRatio: { target: 0.6, goal: 0.8 },
  p50Overhead: { target: 0.25, goal: 0.15 },
};

/** The figures `npm run bench` puts in its summary table (this script prints its own lines as well). */
const summary = createReport("gateway-overhead");
const token = `hgr_bench_${randomBytes(16).toString("hex")}`;
const secret = randomBytes(32).toString("hex");
console.log(`load average before: ${formatLoad()}`);
const platform = await startBenchPlatform({ BOOTSTRAP_TOKEN: token, INTERNAL_AUTH_SECRET: secret, AUTH_CACHE_TTL_MS: "2000", LOG_LEVEL: "info" });
const clients = [];
const anchors = [];
try {
  const gateway = leanClient(platform.gateway);
  const whoami = JSON.parse((await expectOk(gateway, "GET", "/v1/orgs/caller")).body);
  const orgId = whoami.data[0].org_id;
  const dataset = JSON.parse((await expectOk(gateway, "POST", "/v1/datasets", JSON.stringify({ name: "bench", metadata: { a: 1 } }))).body).data;
  const getPath = `/v1/datasets/${dataset.dataset_id}`;
  // The bare HTTP anchor answers with the very bytes the gateway answers get_dataset with.
  const answer = (await expectOk(gateway, "GET", getPath)).body;
  anchors.push(await startAnchor("http", { body: answer }), await startAnchor("pg", { databaseUrl: platform.pgUrl }));
  const [httpAnchor, pgAnchor] = anchors.map((anchor) => leanClient(anchor.url));
  const principal = { kind: "user", subject: "admin", orgId, memberships: [{ orgId, roles: ["owner"] }], isSystemAdmin: true };
  const data = createGrpcUnaryClient(platform.services.data);
  clients.push({ close: () => data.close() });
  const callOptions = () => ({ headers: { "x-hangar-principal": signPrincipal(principal, secret) }, timeoutMs: 10_000 });
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const idleRss = rssMiB(platform.child.pid);

  const cases = {
    get_dataset: {
      "node:http": () => expectOk(httpAnchor, "GET", getPath),
      "node+pg": () => expectOk(pgAnchor, "GET", `/${dataset.dataset_id}`),
      gateway: () => expectOk(gateway, "GET", getPath),
      direct: () => data.call(DataService.method.getDataset, create(GetDatasetRequestSchema, { datasetId: dataset.dataset_id }), callOptions()),
    },
    create_dataset: {
      gateway: () => expectOk(gateway, "POST", "/v1/datasets", '{"name":"b","tags":["x"]}'),
      direct: () => data.call(DataService.method.createDataset, create(CreateDatasetRequestSchema, { name: "b", tags: ["x"] }), callOptions()),
    },
  };
  const only = process.env.BENCH_CASES?.split(","); // e.g. "get_dataset" to profile one operation
  const cpuOf = () => ownCpuSnapshot({ platformPid: platform.child.pid, postmasterPid: platform.postmasterPid, anchors });
  for (const [op, paths] of Object.entries(cases).filter(([name]) => !only || only.includes(name))) {
    const closed = await compare(paths, cpuOf, (call, ms) => closedLoop(call, ms, CONCURRENCY));
    report(op, `closed loop, ${CONCURRENCY} callers (saturation; the primary figures)`, closed, true);
    summarize(op, closed);
    if (!OPEN_LOOP) continue;
    const rate = RATES[op];
    report(op, `open loop at ${rate} req/s`, await compare(paths, cpuOf, (call, ms) => runAtRate(call, rate, ms)), false);
  }
  console.log(`platform RSS: ${idleRss.toFixed(0)} MiB idle, ${rssMiB(platform.child.pid).toFixed(0)} MiB after the load`);
  console.log(`(${ROUNDS} alternating rounds of ${ROUND_MS / 1000} s per path after a ${WARMUP_MS / 1000} s warm-up each; load average after: ${formatLoad()})`);
  summary.add("platform RSS, idle after start", idleRss, "MiB");
  summary.add("platform RSS, after the load", rssMiB(platform.child.pid), "MiB");
  summary.print();
} finally {
  for (const client of clients) client.close();
  await Promise.all(anchors.map((anchor) => anchor.stop()));
  await platform.stop();
}

/** A lean keep-alive client of `baseUrl` with the bench's token on every request. */
function leanClient(baseUrl) {
  const client = createLeanHttpClient(baseUrl, CONCURRENCY);
  clients.push(client);
  return {
    request: (method, path, body) => client.request(method, path, { authorization: `Bearer ${token}` }, body),
  };
}

/** One request; resolves `{ status, body }` of a 200, rejects anything else. */
async function expectOk(client, method, path, body) {
  const res = await client.request(method, path, body);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 200)}`);
  return res;
}

function report(op, load, results, withTargets) {
  console.log(`\n${op}, ${load}:`);
  for (const [path, r] of Object.entries(results)) {
    console.log(`  ${path.padEnd(10)} ${r.rps.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(2)} ms   p99 ${r.p99.toFixed(2)} ms   errors ${r.errors}`);
    console.log(`  ${"".padEnd(10)} CPU per request (µs): ${formatCpu(r.cpu)}`);
  }
  const { gateway, direct } = results;
  for (const anchor of ["node+pg", "node:http"].filter((name) => results[name])) {
    const ratio = gateway.rps / results[anchor].rps;
    const verdict = anchor === "node+pg" && withTargets ? `   ${judge(ratio, TARGETS.anchorRatio, ">=")}` : "";
    console.log(`  gateway / ${anchor} throughput ${ratio.toFixed(2)} (median of the rounds ${median(gateway.roundRatios[anchor]).toFixed(2)})${verdict}`);
  }
  const overhead = gateway.p50 / direct.p50 - 1;
  const verdict = withTargets && op === "get_dataset" ? `   ${judge(overhead, TARGETS.p50Overhead, "<=", true)}` : "";
  console.log(`  gateway p50 overhead over direct gRPC ${percent(overhead)} (median of the rounds ${percent(median(gateway.roundRatios.direct) - 1)})${verdict}`);
}

/**
 * The closed loop's figures for the summary: throughputs, the platform thread's CPU per request
 * beside the anchor process's, and issue 11's two targets as the figures' goals (the goals beyond
 * them, 0.8 and 15%, are in the figure's name and in the lines printed above).
 */
function summarize(op, results) {
  const { gateway, direct } = results;
  const pg = results["node+pg"];
  if (pg) {
    summary.add(`${op} closed loop, ${CONCURRENCY} callers: Node+pg anchor`, pg.rps, "req/s");
    summary.add(`${op} closed loop: the anchor process's CPU per request`, pg.cpu["anchor:pg"], "µs");
    summary.add(`${op} closed loop: through the gateway`, gateway.rps, "req/s");
    summary.add(`${op} closed loop: the platform thread's CPU per request`, gateway.cpu.platform, "µs", { anchor: { name: "the anchor process's", value: pg.cpu["anchor:pg"] } });
    const ratio = gateway.rps / pg.rps;
    summary.add(`${op} closed loop: gateway ÷ Node+pg throughput (goal 0.8; median of the rounds ${median(gateway.roundRatios["node+pg"]).toFixed(2)})`, ratio, "×", { goal: { min: TARGETS.anchorRatio.target } });
  }
  const overhead = (gateway.p50 / direct.p50 - 1) * 100;
  summary.add(`${op} closed loop: gateway p50 over the direct gRPC call${pg ? " (goal 15%)" : ""}`, overhead, "%", pg ? { goal: { max: TARGETS.p50Overhead.target * 100 } } : {});
}

/** "target >= 0.60 PASS, goal >= 0.80 FAIL": one figure against its target and its goal. */
function judge(value, { target, goal }, sense, asPercent = false) {
  const passes = (limit) => (sense === ">=" ? value >= limit : value <= limit);
  const shown = (limit) => (asPercent ? `${(limit * 100).toFixed(0)}%` : limit.toFixed(2));
  return `target ${sense} ${shown(target)} ${passes(target) ? "PASS" : "FAIL"}, goal ${sense} ${shown(goal)} ${passes(goal) ? "PASS" : "FAIL"}`;
}

/**
 * Runs every path of one operation in alternating rounds (the order rotating each round), so that
 * drift on a shared machine (other tenants, the outbox relay catching up, JIT and GC phases) lands
 * on all paths alike. Returns each path's pooled throughput, percentiles and per-request CPU of the
 * benchmark's own processes; the gateway's entry also has, per other path, the gateway's ratio in
 * every round (throughput for anchors, p50 for direct).
 */
async function compare(paths, cpuOf, runner) {
  const names = Object.keys(paths);
  const pooled = Object.fromEntries(names.map((name) => [name, { latencies: [], errors: 0, ms: 0, cpu: {} }]));
  for (const call of Object.values(paths)) await runner(call, WARMUP_MS);
  const roundRatios = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const figures = {};
    for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
      const before = cpuOf();
      const r = await runner(paths[name], ROUND_MS);
      const spent = cpuPerRequest(before, cpuOf(), 1);
      const total = pooled[name];
      for (const latency of r.latencies) total.latencies.push(latency); // not push(...): a quiet machine overflows the stack
      total.errors += r.errors;
      total.ms += r.elapsed;
      for (const [part, us] of Object.entries(spent)) total.cpu[part] = (total.cpu[part] ?? 0) + us;
      figures[name] = { rps: (r.latencies.length / r.elapsed) * 1000, p50: percentile(r.latencies, 50) };
    }
    for (const name of names) roundRatios[name].push(name === "direct" ? figures.gateway.p50 / figures.direct.p50 : figures.gateway.rps / figures[name].rps);
  }
  return Object.fromEntries(
    Object.entries(pooled).map(([name, total]) => {
      const sorted = total.latencies.sort((a, b) => a - b);
      const perRequest = Object.fromEntries(Object.entries(total.cpu).map(([part, us]) => [part, us / sorted.length]));
      const summary = { rps: (sorted.length / total.ms) * 1000, p50: percentile(sorted, 50), p99: percentile(sorted, 99), errors: total.errors, cpu: perRequest };
      return [name, name === "gateway" ? { ...summary, roundRatios } : summary];
    }),
  );
}

/**
 * Starts `call` at a fixed `rate` for `ms`, whatever the answers take (open loop, as wrk2 does):
 * requests never wait for earlier answers, so a slow answer cannot hold back the load behind it.
 * Each latency runs from the request's actual start, not from its due time: Node's timers fire
 * in whole milliseconds, and that lateness belongs to the load generator, not to either path.
 */
async function runAtRate(call, rate, ms) {
  const latencies = [];
  let errors = 0;
  const inFlight = new Set();
  const total = Math.floor((ms / 1000) * rate);
  const started = performance.now();
  let issued = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
      for (; issued < due; issued++) {
        const sent = performance.now();
        const pending = call().then(
          () => latencies.push(performance.now() - sent),
          () => errors++,
        );
        inFlight.add(pending);
        void pending.finally(() => inFlight.delete(pending));
      }
      if (issued < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  await Promise.all(inFlight);
  return { latencies: latencies.sort((a, b) => a - b), errors, elapsed: performance.now() - started };
}

/** The parts that spent anything, and their total. */
function formatCpu(cpu) {
  const parts = Object.entries(cpu).filter(([, us]) => us >= 0.5);
  const total = parts.reduce((sum, [, us]) => sum + us, 0);
  return `${parts.map(([part, us]) => `${part} ${us.toFixed(0)}`).join(", ")}; total ${total.toFixed(0)}`;
}

function formatLoad() {
  return loadavg().map((load) => load.toFixed(2)).join(" / ");
}

function percent(ratio) {
  return `${ratio >= 0 ? "+" : ""}${(ratio * 100).toFixed(0)}%`;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
