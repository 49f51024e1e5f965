// Benchmark: the cost of a batch upload's begin and complete as the manifest grows, and whole
// uploads alone and side by side. Run with `npm run build && npm run bench:upload-begin`. About 5
// minutes on 2 cores at a load average of 10 (BENCH_QUICK=1: a few).
//
// For 100, 1,000 and 10,000 files (BENCH_UPLOAD_SIZES), each into a fresh dataset:
// - begin_batch_upload (POST /v1/files/upload) alone, BENCH_UPLOAD_REPEATS times (median);
// - the objects PUT to the embedded S3-compatible store (concurrency 16, in no figure);
// - complete_upload (PUT /v1/files/upload/{id}/complete) alone, once.
// Each in µs per file: linear work keeps it flat across sizes (the goal: the largest size within 2x
// of the smallest). Then one 1,000-file upload end to end with each step's share, and 8 of them at
// once from two orgs with their own tokens. Paths spread over directories (`run/cam<k>/...`) as
// recordings are, so completion also creates directories.
//
// The platform runs as `npm start` runs it (one process, its embedded PostgreSQL with the default
// durability); this process only generates load. The anchors run against the same PostgreSQL.
import { measureAnchors, reportAnchors } from "./anchor-figures.mjs";
import { memorySnapshot } from "./lib.mjs";
import { createTenant, startBenchPlatform } from "./platform.mjs";
import { createReport, sized } from "./report.mjs";
import { beginUpload, completeUpload, putObjects, uploadBatch } from "./upload.mjs";

const SIZES = (process.env.BENCH_UPLOAD_SIZES ?? sized("100,1000,10000", "10,100,1000")).split(",").map(Number);
const REPEATS = Number(process.env.BENCH_UPLOAD_REPEATS ?? 3);
const E2E_FILES = sized(1000, 200);
const PARALLEL_UPLOADS = 8;

const report = createReport("upload-begin");
const platform = await startBenchPlatform();
try {
  await newDataset(platform.api); // a row for the Node+pg anchor to read
  const anchors = await measureAnchors(platform.pgUrl);
  reportAnchors(report, anchors);
  report.add("platform RSS, idle after start", memorySnapshot(platform.child.pid).platformRss, "MiB");
  await beginUpload(platform.api, await newDataset(platform.api), manifestOf(50)); // warm-up: JIT, connections, prepared plans
  const perFile = [];
  for (const size of SIZES) await report.attempt(`${size.toLocaleString("en-US")} files`, async () => perFile.push({ size, ...(await benchSize(size, anchors.pg.p50)) }));
  reportGrowth(perFile);
  await report.attempt("one upload end to end", () => benchEndToEnd(anchors.pg.p50));
  await report.attempt("uploads at once", () => benchSideBySide());
  report.add("platform RSS, after the uploads", memorySnapshot(platform.child.pid).platformRss, "MiB");
} finally {
  await platform.stop();
}
report.print();

/** Begins (REPEATS times, median) and completes (once) an upload of `size` files; adds their per-file figures. */
async function benchSize(size, anchorMs) {
  const manifest = manifestOf(size);
  const begins = [];
  let last;
  for (let i = 0; i < REPEATS; i++) {
    last = await beginUpload(platform.api, await newDataset(platform.api), manifest);
    begins.push(last.beginMs);
  }
  const beginMs = begins.sort((a, b) => a - b)[Math.floor(begins.length / 2)];
  await putObjects(platform.api, last.begun, manifest);
  const completeMs = await completeUpload(platform.api, last.begun);
  const label = size.toLocaleString("en-US");
  const begin = (beginMs * 1000) / size;
  const complete = (completeMs * 1000) / size;
  const anchor = { name: "Node+pg p50", value: anchorMs * 1000 };
  report.add(`begin_batch_upload of ${label} files, the begin request alone (median of ${REPEATS}), per file`, begin, "µs", { anchor });
  report.add(`complete_upload of ${label} files, the complete request alone, per file`, complete, "µs", { anchor });
  return { begin, complete };
}

/**
 * Per-file cost of each size against the one before and against the smallest: growth would show as
 * ratios above 1 (quadratic work as about 10 for each tenfold step); the goal is within 2x.
 */
function reportGrowth(perFile) {
  const label = (size) => `${size.toLocaleString("en-US")} files`;
  const pairs = perFile.slice(1).map((larger, i) => [perFile[i], larger]);
  if (perFile.length > 2) pairs.push([perFile[0], perFile.at(-1)]);
  for (const [smaller, larger] of pairs) {
    for (const step of ["begin", "complete"]) {
      report.add(`${step} µs per file, ${label(larger.size)} ÷ ${label(smaller.size)}`, larger[step] / smaller[step], "×", { goal: { max: 2 } });
    }
  }
}

/** One upload of E2E_FILES files, end to end and step by step. */
async function benchEndToEnd(anchorMs) {
  const upload = await uploadBatch(platform.api, await newDataset(platform.api), manifestOf(E2E_FILES));
  const label = `${E2E_FILES.toLocaleString("en-US")}-file upload`;
  report.add(`${label} end to end (begin, credentials, PUTs at concurrency 16, complete)`, upload.totalMs, "ms", { goal: { max: (5_000 * E2E_FILES) / 1000 }, anchor: { name: "Node+pg p50", value: anchorMs } });
  report.add(`${label}: begin request`, upload.beginMs, "ms");
  report.add(`${label}: credentials request`, upload.credentialsMs, "ms");
  report.add(`${label}: the PUTs alone`, upload.putMs, "ms");
  report.add(`${label}: complete request`, upload.completeMs, "ms");
}

/** PARALLEL_UPLOADS uploads of E2E_FILES files at once, half from each of two orgs with their own tokens. */
async function benchSideBySide() {
  const tenants = [await createTenant(platform.api, "upload-a"), await createTenant(platform.api, "upload-b")];
  const clients = tenants.map((tenant) => platform.apiAs(tenant.token));
  const datasets = await Promise.all(Array.from({ length: PARALLEL_UPLOADS }, (_, i) => newDataset(clients[i % 2])));
  const started = performance.now();
  const uploads = await Promise.all(datasets.map((dataset, i) => uploadBatch(clients[i % 2], dataset, manifestOf(E2E_FILES), 4)));
  const seconds = (performance.now() - started) / 1000;
  const worst = Math.max(...uploads.map((upload) => upload.totalMs));
  report.add(`${PARALLEL_UPLOADS} uploads of ${E2E_FILES.toLocaleString("en-US")} files at once from 2 orgs (PUTs at concurrency 4 each): files/s`, (PARALLEL_UPLOADS * E2E_FILES) / seconds, "files/s");
  report.add(`${PARALLEL_UPLOADS} uploads at once: the slowest end to end`, worst, "ms");
}

/** `size` paths over 4 camera directories of one run, with small sizes. */
function manifestOf(size) {
  return Object.fromEntries(Array.from({ length: size }, (_, i) => [`run/cam${i % 4}/frame_${String(i).padStart(5, "0")}.bin`, 64 + (i % 64)]));
}

/** A fresh dataset's association. */
async function newDataset(api) {
  const dataset = (await api("POST", "/v1/datasets", { name: "upload-begin-bench" })).data;
  return { association_id: dataset.dataset_id, association_type: "dataset" };
}
