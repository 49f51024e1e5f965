// Benchmark: get_dataset and create_dataset through the gateway (HTTP JSON) against the same RPCs
// called directly (gRPC to the data service), in one run. Prints requests/s, p50 and p99 of both
// and the gateway's p50 overhead ratio. Run with `npm run bench` after `npm run build`.
//
// The platform runs as `npm start` runs it (one process, embedded default) against a real
// PostgreSQL; this process only generates load, so the two compete for the machine's 2 cores as
// a client and a server would.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { startPostgres } from "../test/src/postgres.mjs";
import { freePort } from "../test/src/ports.mjs";
import { closedLoop, cpuSnapshot, cpuSpent, createLeanHttpClient, percentile, startPlatformProcess, stopPlatformProcess } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { create } = require("@bufbuild/protobuf");
const { signPrincipal } = require("../services/shared/dist/auth/index.js");
const { DataService, GetDatasetRequestSchema, CreateDatasetRequestSchema } = require("../services/shared/dist/proto/data.js");
// The direct calls use the gateway's own gRPC client, so both sides pay the same client cost here.
const { createGrpcUnaryClient } = require("../gateway/dist/grpc-unary-client.js");

const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
/**
 * The fixed request rates of the open-loop runs: get_dataset at the issue's throughput target, so
 * that latency is compared at the load the platform must carry, create_dataset at about half of
 * what it sustains. Override with e.g. `BENCH_RATES=get_dataset=1000,create_dataset=300`.
 */
const RATES = { get_dataset: 2_000, create_dataset: 500, ...Object.fromEntries((process.env.BENCH_RATES ?? "").split(",").filter(Boolean).map((pair) => pair.split("=")).map(([op, rate]) => [op, Number(rate)])) };
const WARMUP_MS = 2_000;

const pg = await startPostgres();
const token = `hgr_bench_${randomBytes(16).toString("hex")}`;
const secret = randomBytes(32).toString("hex");
const port = await freePort();
const platform = await startPlatformProcess({ DATABASE_URL: pg.url, PORT: String(port), BOOTSTRAP_TOKEN: token, INTERNAL_AUTH_SECRET: secret, LOG_LEVEL: "info", AUTH_CACHE_TTL_MS: "2000" });
try {
  const gateway = `http://127.0.0.1:${port}`;
  const client = createLeanHttpClient(gateway, CONCURRENCY);
  const whoami = await leanJson(client, "GET", "/v1/orgs/caller", token);
  const orgId = whoami.data[0].org_id;
  const principal = { kind: "user", subject: "admin", orgId, memberships: [{ orgId, roles: ["owner"] }], isSystemAdmin: true };
  const data = createGrpcUnaryClient(platform.services.data);
  const callOptions = () => ({ headers: { "x-hangar-principal": signPrincipal(principal, secret) }, timeoutMs: 10_000 });
  const getRequest = (datasetId) => create(GetDatasetRequestSchema, { datasetId });
  const createRequest = () => create(CreateDatasetRequestSchema, { name: "b", tags: ["x"] });
  const dataset = (await leanJson(client, "POST", "/v1/datasets", token, { name: "bench", metadata: { a: 1 } })).data;

  const calls = {
    get_dataset: {
      gateway: () => leanJson(client, "GET", `/v1/datasets/${dataset.dataset_id}`, token),
      direct: () => data.call(DataService.method.getDataset, getRequest(dataset.dataset_id), callOptions()),
    },
    create_dataset: {
      gateway: () => leanJson(client, "POST", "/v1/datasets", token, { name: "b", tags: ["x"] }),
      direct: () => data.call(DataService.method.createDataset, createRequest(), callOptions()),
    },
  };
  // First, before the create cases leave the outbox relay and consumers busy in the background.
  wrkRun(platform.child.pid, `${gateway}/v1/datasets/${dataset.dataset_id}`, token);
  const only = process.env.BENCH_CASES?.split(","); // e.g. "get_dataset" to profile one operation
  for (const [op, paths] of Object.entries(calls).filter(([name]) => !only || only.includes(name))) {
    report(op, `closed loop, concurrency ${CONCURRENCY}`, await compare(platform.child.pid, paths, (call, ms) => closedLoop(call, ms, CONCURRENCY)));
    const rate = RATES[op];
    report(op, `open loop at ${rate} req/s`, await compare(platform.child.pid, paths, (call, ms) => runAtRate(call, rate, ms)));
  }
  console.log(`(${ROUNDS} alternating rounds of ${ROUND_MS / 1000} s per path after a ${WARMUP_MS / 1000} s warm-up each)`);
  client.close();
  data.close();
} finally {
  await stopPlatformProcess(platform);
  await pg.stop();
}

/**
 * The same get_dataset load from wrk (C, when installed: `apt-get install wrk`), whose own CPU use
 * is small, so the figure shows what the gateway serves when the load generator is out of the way.
 */
function wrkRun(platformPid, url, token) {
  const probe = spawnSync("wrk", ["--version"]);
  if (probe.error) return console.log("(wrk not installed: skipping the wrk run of get_dataset through the gateway)");
  const seconds = Math.round((ROUNDS * ROUND_MS) / 1000);
  const args = ["-t1", `-c${CONCURRENCY}`, `-d${seconds}s`, "--latency", "-H", `Authorization: Bearer ${token}`, url];
  spawnSync("wrk", ["-t1", `-c${CONCURRENCY}`, "-d2s", "-H", `Authorization: Bearer ${token}`, url]);
  const before = cpuSnapshot(platformPid);
  const out = spawnSync("wrk", args, { encoding: "utf8" }).stdout;
  const after = cpuSnapshot(platformPid);
  const rps = Number(out.match(/Requests\/sec:\s+([\d.]+)/)?.[1]);
  const p50 = out.match(/^\s+50%\s+(\S+)/m)?.[1];
  const p99 = out.match(/^\s+99%\s+(\S+)/m)?.[1];
  console.log(`get_dataset    wrk      ${rps.toFixed(0).padStart(6)} req/s   p50 ${p50}   p99 ${p99}`);
  console.log(`${"".padEnd(23)} CPU per request: ${formatCpu(cpuSpent(before, after, rps * seconds))}`);
}

function report(op, load, results) {
  console.log(`${op}, ${load}:`);
  for (const [path, r] of Object.entries(results)) {
    console.log(`  ${path.padEnd(8)} ${r.rps.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(2)} ms   p99 ${r.p99.toFixed(2)} ms   errors ${r.errors}`);
    console.log(`  ${"".padEnd(8)} CPU per request: ${formatCpu(r.cpu)}`);
  }
  const { gateway: g, direct: d } = results;
  console.log(`  gateway p50 / direct p50 = ${(g.p50 / d.p50).toFixed(2)} (the gateway adds ${((g.p50 / d.p50 - 1) * 100).toFixed(0)}% to p50); median of the rounds' ratios ${median(g.roundRatios).toFixed(2)}`);
}

/**
 * Runs the gateway and direct paths of one operation in alternating rounds, so that drift on a
 * shared machine (other tenants, the outbox relay catching up, JIT and GC phases) lands on both
 * paths alike. Returns each path's pooled throughput, percentiles and CPU split, and the
 * gateway/direct p50 ratio of every round.
 */
async function compare(platformPid, paths, runner) {
  const pooled = Object.fromEntries(Object.keys(paths).map((path) => [path, { latencies: [], errors: 0, ms: 0, cpu: undefined }]));
  for (const call of Object.values(paths)) await runner(call, WARMUP_MS);
  const roundRatios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const p50s = {};
    for (const [path, call] of Object.entries(paths)) {
      const before = cpuSnapshot(platformPid);
      const r = await runner(call, ROUND_MS);
      const spent = cpuSpent(before, cpuSnapshot(platformPid), 1);
      const total = pooled[path];
      total.latencies.push(...r.latencies);
      total.errors += r.errors;
      total.ms += r.elapsed;
      total.cpu = total.cpu ? Object.fromEntries(Object.entries(total.cpu).map(([k, v]) => [k, v + spent[k]])) : spent;
      p50s[path] = percentile(r.latencies, 50);
    }
    roundRatios.push(p50s.gateway / p50s.direct);
  }
  return Object.fromEntries(
    Object.entries(pooled).map(([path, total]) => {
      const sorted = total.latencies.sort((a, b) => a - b);
      const perRequest = Object.fromEntries(Object.entries(total.cpu).map(([k, v]) => [k, v / sorted.length]));
      const summary = { rps: (sorted.length / total.ms) * 1000, p50: percentile(sorted, 50), p99: percentile(sorted, 99), errors: total.errors, cpu: perRequest };
      return [path, path === "gateway" ? { ...summary, roundRatios } : summary];
    }),
  );
}

/** One JSON request on the lean client; resolves the parsed body of a 200, rejects anything else. */
async function leanJson(client, method, path, token, body) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const res = await client.request(method, path, { authorization: `Bearer ${token}` }, payload);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
  return JSON.parse(res.body);
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


function formatCpu(cpu) {
  const total = Object.values(cpu).reduce((a, b) => a + b, 0);
  return `${Object.entries(cpu).map(([part, us]) => `${part} ${us.toFixed(0)}`).join(", ")}; total ${total.toFixed(0)} µs`;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
