// Benchmark: the services' unary gRPC fast path (services/shared/src/server/unary-grpc.ts) against
// Connect's handler serving the same calls: the measurement that justifies the fast path. Run with
// `npm run bench:unary-fast-path` after `npm run build`.
//
// Two servers from the services' own start-up (`startRpcServer`, with `unaryFastPath` on and off),
// each in a child process with the same trivial GetDataset implementation and the same interceptors
// (tracing, error normalization, principal verification), are called by the gateway's client from
// this process, 16 callers, in alternating rounds. CPU per call is the server process's (/proc).
import { fork } from "node:child_process";
import { createRequire } from "node:module";
import { closedLoop, percentile, processCpuMs } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { create } = require("@bufbuild/protobuf");
const { createLogger, signPrincipal, startRpcServer } = require("../services/shared/dist/index.js");
const { DataService, GetDatasetRequestSchema } = require("../services/shared/dist/proto/data.js");
const { createGrpcUnaryClient } = require("../gateway/dist/grpc-unary-client.js");

const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECRET = "k".repeat(64);
const MODES = { "fast path": "on", "Connect's handler": "off" };

if (process.argv[2]) await serve(process.argv[2] === "on");
else await main();

async function serve(unaryFastPath) {
  const server = await startRpcServer({
    name: "bench",
    port: 0,
    internalAuthSecret: SECRET,
    logger: createLogger("bench", "silent"),
    unaryFastPath,
    routes: (router) => router.service(DataService, { getDataset: (request) => ({ dataset: { datasetId: request.datasetId, name: "drive", description: "a dataset" } }) }),
  });
  process.send(server.url);
}

async function main() {
  const principal = signPrincipal({ kind: "user", subject: "u_1", orgId: "og_1", memberships: [{ orgId: "og_1", roles: ["owner"] }], isSystemAdmin: false }, SECRET);
  const servers = {};
  for (const [name, mode] of Object.entries(MODES)) {
    const child = fork(new URL(import.meta.url).pathname, [mode]);
    const client = createGrpcUnaryClient(await new Promise((resolve) => child.once("message", resolve)));
    const call = () => client.call(DataService.method.getDataset, create(GetDatasetRequestSchema, { datasetId: "ds_1" }), { headers: { "x-hangar-principal": principal }, timeoutMs: 30_000 });
    servers[name] = { child, call, latencies: [], cpuMs: 0, ms: 0 };
  }
  for (const server of Object.values(servers)) await closedLoop(server.call, ROUND_MS, CONCURRENCY);
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of Object.values(servers)) {
      const before = processCpuMs(server.child.pid);
      const result = await closedLoop(server.call, ROUND_MS, CONCURRENCY);
      server.cpuMs += processCpuMs(server.child.pid) - before;
      server.latencies.push(...result.latencies);
      server.ms += result.elapsed;
    }
  }
  console.log(`unary GetDataset, ${CONCURRENCY} callers, ${ROUNDS} alternating rounds of ${ROUND_MS / 1000} s after a warm-up`);
  for (const [name, server] of Object.entries(servers)) {
    const sorted = server.latencies.sort((a, b) => a - b);
    const rate = (sorted.length / server.ms) * 1000;
    console.log(`${name.padEnd(18)} ${rate.toFixed(0).padStart(6)} calls/s   p50 ${percentile(sorted, 50).toFixed(2)} ms   p99 ${percentile(sorted, 99).toFixed(2)} ms   server CPU ${((server.cpuMs * 1000) / sorted.length).toFixed(0)} µs/call`);
    server.child.kill();
  }
  process.exit(0);
}

