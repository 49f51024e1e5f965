// Benchmark: compute. Run with `npm run bench:compute` after `npm run build`. About 2 minutes on 2 cores.
//
// 1. Trigger latency: 200 uploads, each to a fresh dataset, as the client SDK uploads (begin a batch
//    transaction, PUT the object to the embedded S3-compatible store, complete). A trigger with
//    for_each=dataset watches `*.bin`; the clock runs from sending complete_upload until
//    query_invocations shows the trigger's Queued invocation for that dataset (polled back to
//    back). The upload-completed event travels through a real Kafka broker. Prints p50 and p99.
// 2. Invocations per second: invoke_action (Manual) at concurrency 16 for 10 seconds.
//
// The platform runs as `npm start` runs it (one process), with KAFKA_BROKERS set and no runner, so
// invocations stay Queued; this process only generates load. Targets on 2 cores: p99 under 500 ms,
// at least 200 invocations per second. Environment: BENCH_UPLOADS (default 200),
// BENCH_DURATION_MS (default 10000), BENCH_CONCURRENCY (default 16).
import http from "node:http";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { startKafka } from "../test/src/kafka.mjs";
import { startPostgres } from "../test/src/postgres.mjs";
import { freePort } from "../test/src/ports.mjs";
import { httpJson, percentile, s3ClientFor, startPlatformProcess, stopPlatformProcess } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { PutObjectCommand } = require("@aws-sdk/client-s3");

const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 200);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

const pg = await startPostgres();
const kafka = await startKafka();
const dataDir = await mkdtemp(path.join(tmpdir(), "hangar-bench-"));
const token = `hgr_bench_${randomBytes(16).toString("hex")}`;
const port = await freePort();
const platform = await startPlatformProcess({
  DATABASE_URL: pg.url,
  KAFKA_BROKERS: kafka.brokers,
  PORT: String(port),
  BOOTSTRAP_TOKEN: token,
  LOG_LEVEL: "warn",
  DATA_DIR: dataDir,
  OBJECT_STORE_PORT: String(await freePort()),
  RUNNER: "none",
});
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY + 2 });
const api = (method, route, body) => httpJson(agent, method, `http://127.0.0.1:${port}${route}`, token, body);
try {
  await api("POST", "/v1/actions", { name: "bench-action", container_parameters: { command: ["true"] } });
  await api("POST", "/v1/triggers", { name: "bench-trigger", action_name: "bench-action", for_each: "dataset", required_inputs: ["*.bin"] });
  await benchTriggerLatency();
  await benchInvocationRate();
} finally {
  agent.destroy();
  await stopPlatformProcess(platform);
  await kafka.stop();
  await pg.stop();
  await rm(dataDir, { recursive: true, force: true });
}

async function benchTriggerLatency() {
  const latencies = [];
  for (let i = 0; i < UPLOADS; i++) latencies.push(await uploadAndWaitForInvocation(i));
  latencies.sort((a, b) => a - b);
  console.log(
    `complete_upload -> trigger invocation Queued, over ${UPLOADS} uploads through Kafka:` +
      ` p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1).toFixed(1)} ms (target: p99 under 500 ms)`,
  );
}

/** One upload to a fresh dataset; returns milliseconds from sending complete until the invocation shows. */
async function uploadAndWaitForInvocation(i) {
  const dataset = (await api("POST", "/v1/datasets", { name: `latency-${i}` })).data;
  const begun = (await api("POST", "/v1/files/upload", { association: { association_id: dataset.dataset_id, association_type: "dataset" }, origination: "bench", resource_manifest: { "log.bin": 16 } })).data;
  const creds = (await api("GET", `/v1/files/upload/${begun.transaction_id}/credentials`)).data[0];
  const s3 = s3ClientFor(creds);
  await s3.send(new PutObjectCommand({ Bucket: creds.bucket, Key: begun.upload_mappings["log.bin"].replace(/^s3:\/\/[^/]+\//, ""), Body: randomBytes(16) }));
  s3.destroy();
  const query = { condition: { field: "data_source.data_source_id", comparator: "EQUALS", value: dataset.dataset_id }, limit: 1 };
  const started = performance.now();
  await api("PUT", `/v1/files/upload/${begun.transaction_id}/complete`);
  for (;;) {
    const page = (await api("POST", "/v1/actions/invocations/query", query)).data;
    if (page.items.length > 0) {
      if (page.items[0].last_status !== 0) throw new Error(`expected a Queued invocation, got status ${page.items[0].last_status}`);
      return performance.now() - started;
    }
    if (performance.now() - started > 30_000) throw new Error(`no invocation for ${dataset.dataset_id} after 30 s`);
  }
}

async function benchInvocationRate() {
  const dataset = (await api("POST", "/v1/datasets", { name: "rate" })).data;
  const body = { data_source_id: dataset.dataset_id, data_source_type: "Dataset", input_data: ["*.bin"], invocation_source: "Manual" };
  const invoke = () => api("POST", "/v1/actions/bench-action/invoke", body);
  for (let i = 0; i < 50; i++) await invoke();
  let count = 0;
  const latencies = [];
  const deadline = performance.now() + DURATION_MS;
  const worker = async () => {
    while (performance.now() < deadline) {
      const start = performance.now();
      await invoke();
      latencies.push(performance.now() - start);
      count += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `invoke_action: ${(count / seconds).toFixed(0)} invocations/s at concurrency ${CONCURRENCY} for ${seconds.toFixed(1)} s` +
      ` (p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; target: at least 200/s)`,
  );
}
