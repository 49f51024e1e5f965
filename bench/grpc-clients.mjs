// Benchmark: the gateway's own HTTP/2 gRPC client (gateway/src/h2) against connect-node's gRPC
// transport and Node's http2 client streams, calling the same stub service: the measurement that
// justifies keeping a hand-written client. Run with `npm run bench:grpc-clients` after `npm run build`.
//
// The stub is a bare node:http2 server in a child process answering every call with one fixed
// GetDatasetResponse, so the service costs the same whichever client calls. The three clients take
// turns in rounds (after a warm-up each), so that drift on a shared machine lands on all of them
// alike; each row pools its rounds. CPU per call is this process's (process.cpuUsage: the client,
// its GC and helper threads) and the stub's (from /proc), per completed call.
import { fork } from "node:child_process";
import http2 from "node:http2";
import net from "node:net";
import { createRequire } from "node:module";
import { closedLoop, percentile, processCpuMs } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { create, toBinary, fromBinary } = require("@bufbuild/protobuf");
const { createClient } = require("@connectrpc/connect");
const { createGrpcTransport } = require("@connectrpc/connect-node");
const { DataService, GetDatasetRequestSchema, GetDatasetResponseSchema } = require("../services/shared/dist/proto/data.js");
const { createGrpcUnaryClient } = require("../gateway/dist/grpc-unary-client.js");

const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 3_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const PATH = "/hangar.data.v1.DataService/GetDataset";
/** The metadata the gateway sends with every call, so header encoding costs what it does in production. */
const METADATA = { "x-hangar-principal": "p".repeat(300), traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };

if (process.argv[2] === "--stub") serveStub();
else await main();

/** The stub service: one fixed framed response, headers and trailers, for every call. */
function serveStub() {
  const message = toBinary(
    GetDatasetResponseSchema,
    create(GetDatasetResponseSchema, { dataset: { datasetId: "ds_0123456789abcdef", orgId: "og_0123456789abcdef", name: "drive-2026-11-25", description: "a dataset of a typical size", tags: ["lidar", "camera"] } }),
  );
  const framed = Buffer.alloc(5 + message.length);
  framed.writeUInt32BE(message.length, 1);
  framed.set(message, 5);
  const server = http2.createServer({ maxSessionMemory: 512, streamResetBurst: 100_000, streamResetRate: 10_000 });
  server.on("stream", (stream) => {
    stream.on("error", () => {});
    stream.on("data", () => {});
    stream.on("end", () => {
      stream.respond({ ":status": 200, "content-type": "application/grpc+proto" }, { waitForTrailers: true });
      stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.end(framed);
    });
  });
  server.listen(0, "127.0.0.1", () => process.send(server.address().port));
}

async function main() {
  const stub = fork(new URL(import.meta.url).pathname, ["--stub"]);
  const port = await new Promise((resolve) => stub.once("message", resolve));
  const url = `http://127.0.0.1:${port}`;
  const clients = { "own h2 client (gateway/src/h2)": ownClient(url), "connect-node gRPC transport": connectClient(url), "node:http2 client streams": nodeHttp2Client(url) };
  console.log(`gRPC unary clients against one stub service: ${CONCURRENCY} callers, ${ROUNDS} alternating rounds of ${ROUND_MS / 1000} s per client after a ${WARMUP_MS / 1000} s warm-up each`);
  const pooled = Object.fromEntries(Object.keys(clients).map((name) => [name, { latencies: [], errors: 0, ms: 0, clientCpuMs: 0, stubCpuMs: 0 }]));
  for (const call of Object.values(clients)) await closedLoop(call, WARMUP_MS, CONCURRENCY);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, call] of Object.entries(clients)) {
      const clientBefore = process.cpuUsage();
      const stubBefore = processCpuMs(stub.pid);
      const result = await closedLoop(call, ROUND_MS, CONCURRENCY);
      const clientSpent = process.cpuUsage(clientBefore);
      const total = pooled[name];
      total.latencies.push(...result.latencies);
      total.errors += result.errors;
      total.ms += result.elapsed;
      total.clientCpuMs += (clientSpent.user + clientSpent.system) / 1000;
      total.stubCpuMs += processCpuMs(stub.pid) - stubBefore;
    }
  }
  print(pooled);
  stub.kill();
  process.exit(0);
}

function print(pooled) {
  console.log(`${"client".padEnd(32)} ${"calls/s".padStart(8)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"client CPU µs/call".padStart(19)} ${"stub CPU µs/call".padStart(17)} errors`);
  for (const [name, total] of Object.entries(pooled)) {
    const sorted = total.latencies.sort((a, b) => a - b);
    const calls = sorted.length;
    const row = [
      ((calls / total.ms) * 1000).toFixed(0).padStart(8),
      percentile(sorted, 50).toFixed(2).padStart(7),
      percentile(sorted, 99).toFixed(2).padStart(7),
      ((total.clientCpuMs * 1000) / calls).toFixed(1).padStart(19),
      ((total.stubCpuMs * 1000) / calls).toFixed(1).padStart(17),
      String(total.errors).padStart(6),
    ];
    console.log(`${name.padEnd(32)} ${row.join(" ")}`);
  }
}


function request() {
  return create(GetDatasetRequestSchema, { datasetId: "ds_0123456789abcdef" });
}

function ownClient(url) {
  const client = createGrpcUnaryClient(url);
  return () => client.call(DataService.method.getDataset, request(), { headers: METADATA, timeoutMs: 30_000 });
}

function connectClient(url) {
  const client = createClient(DataService, createGrpcTransport({ baseUrl: url, nodeOptions: { createConnection: noDelayConnection } }));
  return () => client.getDataset(request(), { headers: METADATA, timeoutMs: 30_000 });
}

/** A TCP connection with Nagle's algorithm off, as the gateway's own client opens them, so that the three differ only in the client. */
function noDelayConnection(authority) {
  const socket = net.connect(Number(authority.port), authority.hostname);
  socket.setNoDelay(true);
  return socket;
}

/** The gRPC wire format by hand over Node's http2 client streams: the client the gateway had before its own. */
function nodeHttp2Client(url) {
  const session = http2.connect(url, { createConnection: noDelayConnection });
  session.unref();
  return () =>
    new Promise((resolve, reject) => {
      const payload = toBinary(GetDatasetRequestSchema, request());
      const framed = Buffer.alloc(5 + payload.length);
      framed.writeUInt32BE(payload.length, 1);
      framed.set(payload, 5);
      const stream = session.request({ ":method": "POST", ":path": PATH, "content-type": "application/grpc+proto", te: "trailers", "grpc-timeout": "30000m", ...METADATA });
      const chunks = [];
      let status;
      stream.on("trailers", (trailers) => (status = trailers["grpc-status"]));
      stream.on("data", (chunk) => chunks.push(chunk));
      stream.on("error", reject);
      stream.on("end", () => {
        if (status !== "0") return reject(new Error(`grpc-status ${status}`));
        resolve(fromBinary(GetDatasetResponseSchema, Buffer.concat(chunks).subarray(5)));
      });
      stream.end(framed);
    });
}
