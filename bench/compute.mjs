// Benchmark: compute, with the runner claiming invocations. Run with `npm run build && npm run
// bench:compute`. About 25 minutes on 2 cores at a load average of 15 (seeding 4); BENCH_QUICK=1:
// a few.
//
// The platform runs as `npm start` runs it (one process, its embedded PostgreSQL with the default
// durability, in-process event delivery or, with BENCH_KAFKA=1, a real Kafka broker, and the
// embedded `process` runner executing each invocation: claim, workspace, input download, `true`,
// status reports). Two orgs, each with its own token, an action and a `for_each: dataset` trigger
// on `*.bin`; a third org holds 1,000,000 finished invocations (BENCH_INVOCATIONS) seeded with SQL.
//
// 1. Upload to invocation, one upload at a time: from sending complete_upload until
//    query_invocations lists the trigger's invocation for that dataset (any status: the runner may
//    have claimed it already), and until it is Completed.
// 2. The same while 16 uploads run at once (8 per org).
// 3. query_invocations at 1M rows: the first pages and the pages after 50 pages of next_token.
// 4. invoke_action from 16 callers in two orgs for 10 s while the runner claims; then the runner's
//    completions per second with its queue full.
// 5. The platform's memory idle, after the load, a minute later while the runner still works
//    through the queue the load left (context), and a quiet minute after that queue was cancelled
//    (the goal). The anchors run against the same PostgreSQL in the same run.
import pgModule from "pg";
import { measureAnchors, reportAnchors } from "./anchor-figures.mjs";
import { startKafka } from "../test/src/kafka.mjs";
import { closedLoop, cpuSnapshot, cpuSpent, memorySnapshot, percentile } from "./lib.mjs";
import { reportMemoryAfterLoad, sequential, walkPages } from "./measure.mjs";
import { createTenant, startBenchPlatform } from "./platform.mjs";
import { createReport, sized } from "./report.mjs";
import { beginUpload, completeUpload, putObjects } from "./upload.mjs";

const UPLOADS = Number(process.env.BENCH_UPLOADS ?? sized(100, 10));
const CONCURRENT_UPLOADS = sized(16, 8);
const INVOCATIONS = Number(process.env.BENCH_INVOCATIONS ?? sized(1_000_000, 20_000));
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? sized(10_000, 3_000));
const RUNNER_WINDOW_MS = sized(30_000, 5_000);
const CONCURRENCY = 16;
const COMPLETED = 5;
/**
 * How often a waiting uploader asks whether its invocation exists yet. The figures come from the
 * records' times, so this bounds only how soon an uploader moves on, not what is measured; 16
 * uploaders asking every 20 ms were 800 queries a second on the platform thread, load of their own.
 */
const POLL_MS = 200;

const report = createReport("compute");
const kafka = process.env.BENCH_KAFKA === "1" ? await startKafka() : undefined;
const platform = await startBenchPlatform(kafka ? { KAFKA_BROKERS: kafka.brokers } : {});
const db = new pgModule.Client({ connectionString: platform.pgUrl });
await db.connect();
try {
  const idle = memorySnapshot(platform.child.pid);
  const tenants = [await createTenant(platform.api, "compute-a"), await createTenant(platform.api, "compute-b")];
  const clients = tenants.map((tenant) => platform.apiAs(tenant.token));
  for (const api of clients) await setUpOrg(api);
  await clients[0]("POST", "/v1/datasets", { name: "anchor-row" }); // a row for the Node+pg anchor to read
  const anchors = await measureAnchors(platform.pgUrl);
  reportAnchors(report, anchors);
  const history = await createTenant(platform.api, "compute-history");
  await seedInvocations(history.orgId);
  await report.attempt("upload to invocation", () => benchUploadToInvocation(clients, anchors.pg.p50));
  await report.attempt("query_invocations", () => benchInvocationQueries(platform.apiAs(history.token), anchors.pg.p50));
  await report.attempt("invoke_action", () => benchInvocationRate(clients, anchors.pg.rps));
  await report.attempt("the runner", () => benchRunnerThroughput());
  await reportMemoryAfterLoad(report, platform.child.pid, idle, { what: "the runner still working through the queue the load left", stop: cancelLeftoverQueue });
} finally {
  await db.end();
  await platform.stop();
  await kafka?.stop();
}
report.print();

/** The org's action (runs `true`) and its legacy trigger (so created under the version before 2026-08-27): once per dataset with a `*.bin` file. */
async function setUpOrg(api) {
  await api("POST", "/v1/actions", { name: "bench-action", container_parameters: { command: ["true"] } });
  await api("POST", "/v1/triggers", { name: "bench-trigger", action_name: "bench-action", for_each: "dataset", required_inputs: ["*.bin"] }, { "X-Roboto-Api-Version": "2026-08-10" });
}

/** INVOCATIONS finished invocations of 50 actions over 1,000 datasets, one in 100 Cancelled, as a busy org's history. */
async function seedInvocations(orgId) {
  const started = performance.now();
  await db.query(
    `insert into compute.invocations (invocation_id, org_id, action_org_id, action_name, action_digest, data_source_type, data_source_id,
       compute_requirements, container_parameters, source_type, source_id, created_by, timeout, last_status, status_history, created, started, finished)
     select 'iv_hist_' || lpad(i::text, 7, '0'), $1, $1, 'act_' || (i % 50), 'd', 'Dataset', 'ds_hist_' || (i % 1000),
       '{"vCPU": 512, "memory": 1024, "gpu": false, "storage": 21}', '{"command": ["true"]}', 'Manual', 'u', 'u', 30, case when i % 100 = 0 then 997 else 5 end, '[]',
       t, t + interval '1 second', t + interval '1 minute'
     from (select i, timestamptz '2026-01-01 00:00:00+00' + i * interval '10 second' as t from generate_series(1, $2::int) i) s`,
    [orgId, INVOCATIONS],
  );
  await db.query("analyze compute.invocations");
  console.log(`seed: ${INVOCATIONS} invocations in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Phases 1 and 2: upload-to-invocation latency alone and with CONCURRENT_UPLOADS at once. */
async function benchUploadToInvocation(clients, anchorMs) {
  const anchor = { name: "Node+pg p50", value: anchorMs };
  const alone = [];
  for (let i = 0; i < UPLOADS; i++) alone.push(await uploadAndWait(clients[i % 2], true));
  const listed = alone.map((r) => r.listed).sort((a, b) => a - b);
  const completed = alone.map((r) => r.completed).sort((a, b) => a - b);
  report.add("complete_upload sent -> trigger's invocation created, one upload at a time: p50", percentile(listed, 50), "ms", { anchor });
  report.add("complete_upload sent -> trigger's invocation created, one upload at a time: p99", percentile(listed, 99), "ms", { goal: { max: 500 } });
  report.add("complete_upload sent -> invocation Completed by the runner, one at a time: p50", percentile(completed, 50), "ms");
  report.add("complete_upload sent -> invocation Completed by the runner, one at a time: p99", percentile(completed, 99), "ms");
  const together = [];
  let next = 0;
  const uploader = async (api) => {
    while (next++ < sized(200, 16)) together.push((await uploadAndWait(api, false)).listed);
  };
  await Promise.all(Array.from({ length: CONCURRENT_UPLOADS }, (_, i) => uploader(clients[i % 2])));
  together.sort((a, b) => a - b);
  report.add(`complete_upload sent -> trigger's invocation created, ${CONCURRENT_UPLOADS} uploads at once from 2 orgs: p50`, percentile(together, 50), "ms", { anchor });
  report.add(`complete_upload sent -> trigger's invocation created, ${CONCURRENT_UPLOADS} uploads at once from 2 orgs: p99`, percentile(together, 99), "ms", { goal: { max: 500 } });
}

/**
 * One upload of one `.bin` file into a fresh dataset; resolves the ms from sending complete until
 * the trigger's invocation was created (its record's `created`) and, when `untilCompleted`, until
 * it was Completed (the Completed entry of its status history). Both are read from the records,
 * which the platform stamps with this machine's clock, polled every POLL_MS: polling back to back
 * made 16 waiting callers a load of their own on the platform thread, so the figures measured the
 * polls as much as the event path.
 */
async function uploadAndWait(api, untilCompleted) {
  const dataset = (await api("POST", "/v1/datasets", { name: "trigger-latency" })).data;
  const manifest = { "log.bin": 16 };
  const { begun } = await beginUpload(api, { association_id: dataset.dataset_id, association_type: "dataset" }, manifest);
  await putObjects(api, begun, manifest, 1);
  const query = { condition: { field: "data_source.data_source_id", comparator: "EQUALS", value: dataset.dataset_id }, limit: 1 };
  const sentAt = Date.now();
  await completeUpload(api, begun);
  for (;;) {
    const invocation = (await api("POST", "/v1/actions/invocations/query", query)).data.items[0];
    if (invocation?.last_status >= 997) throw new Error(`invocation ${invocation.invocation_id} ended in status ${invocation.last_status}`);
    if (invocation && (!untilCompleted || invocation.last_status === COMPLETED)) {
      const completedAt = invocation.status.find((entry) => entry.status === COMPLETED)?.timestamp;
      return { listed: Date.parse(invocation.created) - sentAt, completed: completedAt ? Date.parse(completedAt) - sentAt : undefined };
    }
    if (Date.now() - sentAt > 60_000) throw new Error(`no ${invocation ? "completed " : ""}invocation for ${dataset.dataset_id} after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Phase 3: query_invocations of the org with INVOCATIONS rows, first pages and pages 51-55 by next_token. */
async function benchInvocationQueries(api, anchorMs) {
  const rows = INVOCATIONS.toLocaleString("en-US");
  const cases = [
    ["newest first", undefined],
    ["one action's (1 in 50), newest first", { field: "provenance.action.name", comparator: "EQUALS", value: "act_7" }],
    ["a rare status (Cancelled, 1 in 100), newest first", { field: "last_status", comparator: "EQUALS", value: 997 }],
  ];
  for (const [name, condition] of cases) {
    const query = (after) => api("POST", "/v1/actions/invocations/query", { limit: 100, ...(condition ? { condition } : {}), ...(after ? { after } : {}) });
    const first = await sequential(() => query(), sized(100, 20));
    const walk = await walkPages(query, 55);
    const label = `query_invocations at ${rows} rows, ${name}, page 100`;
    report.add(`${label}: first page p50`, first.p50, "ms", { goal: { max: 50 }, anchor: { name: "Node+pg p50", value: anchorMs } });
    report.add(`${label}: pages 51-55 ÷ pages 1-5 by next_token`, walk.last / walk.first, "×", { goal: { max: 2 } });
  }
  const oneDataset = await sequential(() => api("POST", "/v1/actions/invocations/query", { limit: 100, condition: { field: "data_source.data_source_id", comparator: "EQUALS", value: "ds_hist_7" } }), sized(20, 5));
  report.add(`query_invocations at ${rows} rows, one dataset's (1 in 1,000), page 100: p50`, oneDataset.p50, "ms", { goal: { max: 50 }, anchor: { name: "Node+pg p50", value: anchorMs } });
}

/** Phase 4: invoke_action from CONCURRENCY callers in two orgs, back to back, while the runner claims. */
async function benchInvocationRate(clients, anchorRps) {
  const datasets = await Promise.all(clients.map(async (api) => (await api("POST", "/v1/datasets", { name: "rate" })).data.dataset_id));
  const body = (i) => ({ data_source_id: datasets[i], data_source_type: "Dataset", input_data: ["*.bin"], invocation_source: "Manual" });
  let turn = 0;
  const invoke = () => {
    const i = turn++ % 2;
    return clients[i]("POST", "/v1/actions/bench-action/invoke", body(i));
  };
  for (let i = 0; i < 20; i++) await invoke();
  const before = cpuSnapshot(platform.child.pid);
  const loop = await closedLoop(invoke, DURATION_MS, CONCURRENCY);
  const cpu = cpuSpent(before, cpuSnapshot(platform.child.pid), loop.latencies.length);
  const label = `invoke_action from ${CONCURRENCY} callers in 2 orgs, runner claiming`;
  report.add(`${label}: invocations created per second`, (loop.latencies.length * 1000) / loop.elapsed, "/s", { goal: { min: 200 }, anchor: { name: "Node+pg req/s", value: anchorRps } });
  report.add(`${label}: p50`, percentile(loop.latencies, 50), "ms");
  report.add(`${label}: p99`, percentile(loop.latencies, 99), "ms");
  if (loop.errors > 0) report.add(`${label}: failed requests`, loop.errors, "requests", { goal: { max: 0 } });
  report.add(`${label}: CPU per invocation, platform process (gateway, services, runner)`, cpu.gateway + cpu.services + cpu.helpers, "µs");
  report.add(`${label}: CPU per invocation, its PostgreSQL`, cpu.postgres, "µs");
}

/**
 * Ends the work the load left behind before the quiet minute: the invocations still Queued (the
 * runner completes about 20 a second; invoke_action queued thousands) are cancelled with SQL, and
 * the ones under way run to their end. Without this the "quiet" minute measured the runner at work.
 */
async function cancelLeftoverQueue() {
  const { rowCount } = await db.query("update compute.invocations set last_status = 997 where last_status = 0 and invocation_id not like 'iv_hist_%'");
  for (const started = Date.now(); Date.now() - started < 60_000; await new Promise((resolve) => setTimeout(resolve, 500))) {
    const running = Number((await db.query("select count(*) from compute.invocations where last_status between 1 and 4")).rows[0].count);
    if (running === 0) break;
  }
  console.log(`memory: cancelled ${rowCount} queued invocations the load left; the runner's runs under way ended`);
}

/** Phase 5: the embedded runner's completions per second while its queue stays full, and any failures. */
async function benchRunnerThroughput() {
  const count = async (statuses) => Number((await db.query("select count(*) from compute.invocations where last_status = any($1) and invocation_id not like 'iv_hist_%'", [statuses])).rows[0].count);
  const before = await count([COMPLETED]);
  await new Promise((resolve) => setTimeout(resolve, RUNNER_WINDOW_MS));
  const done = await count([COMPLETED]) - before;
  report.add(`the embedded runner (RUNNER=process, 2 at a time), queue full: invocations Completed per second over ${RUNNER_WINDOW_MS / 1000} s`, (done * 1000) / RUNNER_WINDOW_MS, "/s");
  report.add("invocations Failed or Deadly in the whole run", await count([998, 999]), "invocations", { goal: { max: 0 } });
}
