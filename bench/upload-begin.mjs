// Benchmark: the cost of a batch upload's begin and complete as the manifest grows. Run with
// `npm run build && npm run bench:upload-begin`. About 3 minutes on 2 cores.
//
// For 100, 1,000 and 10,000 files (BENCH_UPLOAD_SIZES), each into a fresh dataset:
// - begin_batch_upload (POST /v1/files/upload), BENCH_UPLOAD_REPEATS times (median printed);
// - the objects PUT to the embedded S3-compatible store (concurrency 16, not part of the figures);
// - complete_upload (PUT /v1/files/upload/{id}/complete), once.
// Each prints ms in all and µs per file: linear work keeps µs per file flat across sizes (the
// issue's bar: within 2x). The 1,000-file run also prints its end-to-end time (begin, credentials,
// the PUTs, complete), as bench/files.mjs measures it.
//
// The platform runs as `npm start` runs it (one process, embedded default) against a real
// PostgreSQL; this process only generates load. Paths spread over directories (`run/cam<k>/...`)
// as recordings are, so completion also creates directories.
import http from "node:http";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { startPostgres } from "../test/src/postgres.mjs";
import { freePort } from "../test/src/ports.mjs";
import { httpJson, s3ClientFor, startPlatformProcess, stopPlatformProcess } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { PutObjectCommand } = require("@aws-sdk/client-s3");

const SIZES = (process.env.BENCH_UPLOAD_SIZES ?? "100,1000,10000").split(",").map(Number);
const REPEATS = Number(process.env.BENCH_UPLOAD_REPEATS ?? 3);
const PUT_CONCURRENCY = 16;

const pg = await startPostgres();
const dataDir = await mkdtemp(path.join(tmpdir(), "hangar-bench-"));
const token = `hgr_bench_${randomBytes(16).toString("hex")}`;
const port = await freePort();
const env = { DATABASE_URL: pg.url, PORT: String(port), BOOTSTRAP_TOKEN: token, LOG_LEVEL: "warn", DATA_DIR: dataDir, OBJECT_STORE_PORT: String(await freePort()) };
const platform = await startPlatformProcess(env);
const agent = new http.Agent({ keepAlive: true, maxSockets: PUT_CONCURRENCY });
const api = (method, route, body) => httpJson(agent, method, `http://127.0.0.1:${port}${route}`, token, body);
try {
  await begin(manifestOf(50)); // warm-up: JIT, connections, prepared plans
  console.log(`files  | begin ms (median of ${REPEATS}) | begin µs/file | complete ms | complete µs/file`);
  for (const size of SIZES) await benchSize(size);
} finally {
  agent.destroy();
  await stopPlatformProcess(platform);
  await pg.stop();
  await rm(dataDir, { recursive: true, force: true });
}

/** Begins (REPEATS times) and completes (once) an upload of `size` files; prints one row. */
async function benchSize(size) {
  const manifest = manifestOf(size);
  const begins = [];
  let last;
  for (let i = 0; i < REPEATS; i++) {
    last = await begin(manifest);
    begins.push(last.beginMs);
  }
  const beginMs = begins.sort((a, b) => a - b)[Math.floor(begins.length / 2)];
  const putMs = await putAll(last, manifest);
  const started = performance.now();
  await api("PUT", `/v1/files/upload/${last.begun.transaction_id}/complete`, {});
  const completeMs = performance.now() - started;
  const perFile = (ms) => ((ms * 1000) / size).toFixed(0);
  console.log(`${String(size).padStart(6)} | ${beginMs.toFixed(0).padStart(8)} | ${perFile(beginMs).padStart(6)} | ${completeMs.toFixed(0).padStart(8)} | ${perFile(completeMs).padStart(6)}`);
  if (size === 1000) {
    const e2e = beginMs + last.credentialsMs + putMs + completeMs;
    console.log(`         1,000 files end to end: ${(e2e / 1000).toFixed(2)} s (begin ${beginMs.toFixed(0)} ms, PUTs ${putMs.toFixed(0)} ms, complete ${completeMs.toFixed(0)} ms; target under 5 s)`);
  }
}

/** `size` paths over 4 camera directories of one run, with small sizes. */
function manifestOf(size) {
  return Object.fromEntries(Array.from({ length: size }, (_, i) => [`run/cam${i % 4}/frame_${String(i).padStart(5, "0")}.bin`, 64 + (i % 64)]));
}

/** Creates a dataset and begins an upload of `manifest` into it (only the begin is timed). */
async function begin(manifest) {
  const dataset = (await api("POST", "/v1/datasets", { name: "upload-begin-bench" })).data;
  const association = { association_id: dataset.dataset_id, association_type: "dataset" };
  const started = performance.now();
  const begun = (await api("POST", "/v1/files/upload", { association, origination: "bench", resource_manifest: manifest })).data;
  return { begun, beginMs: performance.now() - started, credentialsMs: 0 };
}

/** PUTs every object of a begun upload; returns the ms taken (credentials included, kept on `upload`). */
async function putAll(upload, manifest) {
  const started = performance.now();
  const creds = (await api("GET", `/v1/files/upload/${upload.begun.transaction_id}/credentials`)).data[0];
  upload.credentialsMs = performance.now() - started;
  const s3 = s3ClientFor(creds);
  const queue = Object.entries(manifest);
  const put = async () => {
    for (let next = queue.pop(); next; next = queue.pop()) {
      const [filePath, size] = next;
      const key = upload.begun.upload_mappings[filePath].replace(/^s3:\/\/[^/]+\//, "");
      await s3.send(new PutObjectCommand({ Bucket: creds.bucket, Key: key, Body: randomBytes(size) }));
    }
  };
  await Promise.all(Array.from({ length: PUT_CONCURRENCY }, put));
  s3.destroy();
  return performance.now() - started - upload.credentialsMs;
}
