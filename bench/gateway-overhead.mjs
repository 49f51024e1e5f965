// Benchmark: get_dataset and create_dataset through the gateway (HTTP JSON) against the same RPCs
// called directly (gRPC to the data service), in one run. Prints requests/s, p50 and p99 of both
// and the gateway's p50 overhead ratio. Run with `npm run bench` after `npm run build`.
//
// The platform runs as `npm start` runs it (one process, embedded default) against a real
// PostgreSQL; this process only generates load, so the two compete for the machine's 2 cores as
// a client and a server would.
import { spawnSync } from "node:child_process";
import http from "node:http";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { startPostgres } from "../test/src/postgres.mjs";
import { freePort } from "../test/src/ports.mjs";
import { httpJson, percentile, startPlatformProcess, stopPlatformProcess } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { create } = require("@bufbuild/protobuf");
const { signPrincipal } = require("../services/shared/dist/auth/index.js");
const { DataService, GetDatasetRequestSchema, CreateDatasetRequestSchema } = require("../services/shared/dist/proto/data.js");
// The direct calls use the gateway's own gRPC client, so both sides pay the same client cost here.
const { createGrpcUnaryClient } = require("../gateway/dist/grpc-unary-client.js");

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP_MS = 2_000;

const pg = await startPostgres();
const token = `hgr_bench_${randomBytes(16).toString("hex")}`;
const secret = randomBytes(32).toString("hex");
const port = await freePort();
const platform = await startPlatformProcess({ DATABASE_URL: pg.url, PORT: String(port), BOOTSTRAP_TOKEN: token, INTERNAL_AUTH_SECRET: secret, LOG_LEVEL: "info", AUTH_CACHE_TTL_MS: "2000" });
try {
  const gateway = `http://127.0.0.1:${port}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const whoami = await httpJson(agent, "GET", `${gateway}/v1/orgs/caller`, token);
  const orgId = whoami.data[0].org_id;
  const principal = { kind: "user", subject: "admin", orgId, memberships: [{ orgId, roles: ["owner"] }], isSystemAdmin: true };
  const data = createGrpcUnaryClient(platform.services.data);
  const callOptions = () => ({ headers: { "x-hangar-principal": signPrincipal(principal, secret) }, timeoutMs: 10_000 });
  const getRequest = (datasetId) => create(GetDatasetRequestSchema, { datasetId });
  const createRequest = () => create(CreateDatasetRequestSchema, { name: "b", tags: ["x"] });
  const dataset = (await httpJson(agent, "POST", `${gateway}/v1/datasets`, token, { name: "bench", metadata: { a: 1 } })).data;

  const cases = {
    "get_dataset  gateway": () => httpJson(agent, "GET", `${gateway}/v1/datasets/${dataset.dataset_id}`, token),
    "get_dataset  direct ": () => data.call(DataService.method.getDataset, getRequest(dataset.dataset_id), callOptions()),
    "create_dataset gateway": () => httpJson(agent, "POST", `${gateway}/v1/datasets`, token, { name: "b", tags: ["x"] }),
    "create_dataset direct ": () => data.call(DataService.method.createDataset, createRequest(), callOptions()),
  };
  // First, before the create cases leave the outbox relay and consumers busy in the background.
  wrkRun(`${gateway}/v1/datasets/${dataset.dataset_id}`, token);
  const results = {};
  const only = process.env.BENCH_CASES; // e.g. "get_dataset  gateway" to profile one case
  for (const [name, call] of Object.entries(cases).filter(([n]) => !only || n.trim() === only)) {
    await run(call, WARMUP_MS);
    results[name] = await run(call, DURATION_MS);
    const r = results[name];
    console.log(`${name}  ${r.rps.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(2)} ms   p99 ${r.p99.toFixed(2)} ms   errors ${r.errors}`);
  }
  for (const op of ["get_dataset", "create_dataset"]) {
    const g = Object.entries(results).find(([k]) => k.startsWith(op) && k.includes("gateway"))?.[1];
    const d = Object.entries(results).find(([k]) => k.startsWith(op) && k.includes("direct"))?.[1];
    if (!g || !d) continue;
    console.log(`${op}: gateway p50 / direct p50 = ${(g.p50 / d.p50).toFixed(2)} (the gateway adds ${((g.p50 / d.p50 - 1) * 100).toFixed(0)}% to p50)`);
  }
  console.log(`(concurrency ${CONCURRENCY}, ${DURATION_MS / 1000} s per case, ${process.env.BENCH_DURATION_MS ? "custom" : "default"} duration)`);
  agent.destroy();
  data.close();
} finally {
  await stopPlatformProcess(platform);
  await pg.stop();
}

/**
 * The same get_dataset load from wrk (C, when installed: `apt-get install wrk`), whose own CPU use
 * is small, so the figure shows what the gateway serves when the load generator is out of the way.
 */
function wrkRun(url, token) {
  const probe = spawnSync("wrk", ["--version"]);
  if (probe.error) return console.log("(wrk not installed: skipping the wrk run of get_dataset through the gateway)");
  const args = ["-t1", `-c${CONCURRENCY}`, `-d${Math.round(DURATION_MS / 1000)}s`, "--latency", "-H", `Authorization: Bearer ${token}`, url];
  spawnSync("wrk", ["-t1", `-c${CONCURRENCY}`, "-d2s", "-H", `Authorization: Bearer ${token}`, url]);
  const out = spawnSync("wrk", args, { encoding: "utf8" }).stdout;
  const rps = out.match(/Requests\/sec:\s+([\d.]+)/)?.[1];
  const p50 = out.match(/^\s+50%\s+(\S+)/m)?.[1];
  const p99 = out.match(/^\s+99%\s+(\S+)/m)?.[1];
  console.log(`get_dataset  gateway (wrk)  ${Number(rps).toFixed(0).padStart(6)} req/s   p50 ${p50}   p99 ${p99}`);
}

/** Runs `call` from CONCURRENCY loops for `ms`; returns throughput and latency percentiles. */
async function run(call, ms) {
  const latencies = [];
  let errors = 0;
  const end = performance.now() + ms;
  const worker = async () => {
    while (performance.now() < end) {
      const start = performance.now();
      try {
        await call();
        latencies.push(performance.now() - start);
      } catch {
        errors++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return { rps: (latencies.length / elapsed) * 1000, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}
