// Benchmark: 10,000 scheduled triggers due in the same minute, two scheduler replicas. Run with
// `npm run build && npm run bench:scheduled-triggers`; about two minutes (BENCH_QUICK=1: 1,000
// triggers).
//
// Two platform processes as `npm start` runs them share one PostgreSQL (the first's embedded one,
// with its default durability): each runs the compute service and so a trigger scheduler
// (TRIGGER_SCHEDULER_INTERVAL_MS=250). One trigger is created through the API (`* * * * *`, one
// Slack target whose text names the trigger) and cloned with SQL into BENCH_TRIGGERS rows, all due
// at the next minute M at least 20 s away. A local HTTP server stands in for the Slack webhook.
//
// Figures: when each trigger fired (its dispatch row was claimed) and when its Slack post arrived,
// measured from M (goal: all within 5 s); dispatch rows and posts per trigger for the tick M (goal:
// exactly one each, so duplicates and misses are both 0). The triggers are disabled after M. The
// anchors, measured after the tick in the same run: bare `pg` writing as many dispatch rows (the
// claims' statements without the platform) and bare `fetch` making as many posts to the same sink.
import http from "node:http";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pgModule from "pg";
import { freePort } from "../test/src/ports.mjs";
import { percentile, startPlatformProcess, stopPlatformProcess } from "./lib.mjs";
import { startBenchPlatform } from "./platform.mjs";
import { createReport, sized } from "./report.mjs";

const TRIGGERS = Number(process.env.BENCH_TRIGGERS ?? sized(10_000, 1_000));
const GOAL_MS = 5_000;

const report = createReport("scheduled-triggers");
const sink = await startSink();
const env = { SLACK_WEBHOOKS: `C_BENCH=${sink.url}`, TRIGGER_SCHEDULER_INTERVAL_MS: "250" };
const first = await startBenchPlatform(env);
const second = await startReplica(first, env);
const db = new pgModule.Client({ connectionString: first.pgUrl });
await db.connect();
try {
  await report.attempt("fire", async () => {
    const minute = await seed();
    console.log(`${TRIGGERS} triggers due at ${minute.toISOString()}; waiting for the tick`);
    const ofMinute = (text) => text.endsWith(`@${minute.toISOString()}`);
    await waitUntil(() => [...sink.arrivals.keys()].filter(ofMinute).length >= TRIGGERS || Date.now() > minute.getTime() + 120_000);
    await db.query("update compute.triggers set enabled = false, next_fire_at = null where engine = 'v2'");
    const anchors = { claim: await claimAnchor(), posts: await postAnchor() };
    await measure(minute, anchors, ofMinute);
  });
} finally {
  report.print();
  await db.end();
  await stopPlatformProcess(second.platform);
  await rm(second.dataDir, { recursive: true, force: true });
  await first.stop();
  sink.server.close();
}

/** Creates one trigger through the API and clones it with SQL; resolves the minute they are all due at. */
async function seed() {
  // The text names the trigger and the tick: a trigger whose posts outlast the minute fires again at
  // the next one (it is disabled only after the wait), and that post must not count for M.
  const target = { type: "send_slack_message", target_id: "post", channel_id: "C_BENCH", text: "{{trigger.trigger_id}}@{{schedule.scheduled_for}}" };
  const created = (await first.api("POST", "/v1/triggers", { name: "bench-0", fires_on: { type: "schedule", cron: "* * * * *" }, targets: [target] })).data;
  const minute = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
  await db.query(
    `insert into compute.triggers (trigger_id, org_id, name, action_name, action_owner_id, action_digest, required_inputs, additional_inputs, causes, for_each, enabled,
            condition, compute_requirement_overrides, container_parameter_overrides, parameter_values, service_user_id, timeout, created, created_by,
            modified, modified_by, service_user_granted_by, engine, fires_on, targets, managed_by, next_fire_at)
     select 'tr_bench_' || n, org_id, 'bench-' || n, action_name, action_owner_id, action_digest, required_inputs, additional_inputs, causes, for_each, enabled,
            condition, compute_requirement_overrides, container_parameter_overrides, parameter_values, service_user_id, timeout, created, created_by,
            modified, modified_by, service_user_granted_by, engine, fires_on, targets, managed_by, next_fire_at
     from compute.triggers, generate_series(1, $2::int - 1) as n where trigger_id = $1`,
    [created.trigger_id, TRIGGERS],
  );
  await db.query("update compute.triggers set next_fire_at = $1 where engine = 'v2'", [minute]);
  return minute;
}

/**
 * The claim anchor: what bare `pg` takes, in this run, to write the tick's dispatch rows in batches
 * of 1,000, each one statement as the scheduler's claim (a JSON record set inserted into a scratch
 * table of the same columns, with the same unique index), with no platform around it.
 */
async function claimAnchor() {
  await db.query("create temporary table anchor_dispatches (like compute.trigger_dispatches including defaults including indexes)");
  const started = performance.now();
  for (let from = 0; from < TRIGGERS; from += 1000) {
    const rows = Array.from({ length: Math.min(1000, TRIGGERS - from) }, (_, i) => ({
      trigger_id: `tr_anchor_${from + i}`, org_id: "og_anchor", idempotency_token: "schedule.fired|occurrence:x", target_id: "post", target_type: "send_slack_message",
      event_type: "schedule.fired", event_id: `tr_anchor_${from + i}@x`, subject: "roboto://trigger/x", status: "claimed", claimed_at: new Date().toISOString(),
    }));
    await db.query(
      `insert into anchor_dispatches (trigger_id, org_id, idempotency_token, target_id, target_type, event_type, event_id, subject, status, claimed_at)
       select trigger_id, org_id, idempotency_token, target_id, target_type, event_type, event_id, subject, status, claimed_at
       from jsonb_to_recordset($1::jsonb) as r(trigger_id text, org_id text, idempotency_token text, target_id text, target_type text, event_type text, event_id text, subject text, status text, claimed_at timestamptz)
       on conflict do nothing returning *`,
      [JSON.stringify(rows)],
    );
  }
  return { name: "bare pg claim", value: performance.now() - started };
}

/** The post anchor: what bare `fetch` takes, in this run, to make the tick's posts to the same sink, 128 at once (the two replicas' 64 each). */
async function postAnchor() {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < TRIGGERS) {
      const n = next++;
      const response = await fetch(sink.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: `anchor-${n}`, channel: "C_BENCH" }) });
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 128 }, worker));
  return { name: "bare fetch posts", value: performance.now() - started };
}

/** Reports the fire and delivery delays after `minute` and the dispatches and posts per trigger, the maxima beside their anchors. */
async function measure(minute, anchors, ofMinute) {
  const { rows } = await db.query(
    "select trigger_id, count(*)::int as n, min(extract(epoch from claimed_at) * 1000)::float8 as claimed from compute.trigger_dispatches where event_id like $1 group by trigger_id",
    [`%@${minute.toISOString()}`],
  );
  const fired = rows.map((r) => r.claimed - minute.getTime()).sort((a, b) => a - b);
  const delivered = [...sink.arrivals.entries()].filter(([text]) => ofMinute(text)).map(([, at]) => at - minute.getTime()).sort((a, b) => a - b);
  const counts = [...sink.counts.entries()].filter(([text]) => ofMinute(text)).map(([, n]) => n);
  const duplicatePosts = counts.filter((n) => n > 1).length;
  report.add(`fired (dispatch claimed) after the minute, p50 of ${TRIGGERS}`, percentile(fired, 50), "ms");
  report.add(`fired after the minute, max of ${TRIGGERS}`, fired.at(-1) ?? NaN, "ms", { goal: { max: GOAL_MS }, anchor: anchors.claim });
  report.add("Slack post received after the minute, p50", percentile(delivered, 50), "ms");
  report.add("Slack post received after the minute, max", delivered.at(-1) ?? NaN, "ms", { goal: { max: GOAL_MS }, anchor: anchors.posts });
  report.add(`anchor: bare pg writing ${TRIGGERS} dispatch rows, 1,000 a statement`, anchors.claim.value, "ms");
  report.add(`anchor: bare fetch making ${TRIGGERS} posts to the same sink`, anchors.posts.value, "ms");
  report.add("triggers that did not fire for the minute", TRIGGERS - rows.length, "triggers", { goal: { max: 0 } });
  report.add("triggers with more than one dispatch for the minute", rows.filter((r) => r.n > 1).length, "triggers", { goal: { max: 0 } });
  report.add("triggers whose Slack post never arrived", TRIGGERS - counts.length, "triggers", { goal: { max: 0 } });
  report.add("triggers whose Slack post arrived twice or more", duplicatePosts, "triggers", { goal: { max: 0 } });
}

/** A second platform process on the first one's database: another compute service, another scheduler. */
async function startReplica(primary, extraEnv) {
  const dataDir = await mkdtemp(path.join(tmpdir(), "hangar-bench-replica-"));
  const platform = await startPlatformProcess({
    DATABASE_URL: primary.pgUrl,
    KAFKA_BROKERS: undefined,
    OBJECT_STORE_BUCKET: undefined,
    OBJECT_STORE_ENDPOINT: undefined,
    PORT: String(await freePort()),
    BOOTSTRAP_TOKEN: primary.token,
    LOG_LEVEL: "warn",
    DATA_DIR: dataDir,
    OBJECT_STORE_PORT: String(await freePort()),
    ...extraEnv,
  });
  return { platform, dataDir };
}

/** The Slack webhook stand-in: when each post (its text names the trigger and the tick) first arrived, and how many came. */
async function startSink() {
  const arrivals = new Map();
  const counts = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const { text } = JSON.parse(Buffer.concat(chunks).toString());
      if (!arrivals.has(text)) arrivals.set(text, Date.now());
      counts.set(text, (counts.get(text) ?? 0) + 1);
      res.end("ok");
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, arrivals, counts, url: `http://127.0.0.1:${server.address().port}/hook/${randomBytes(4).toString("hex")}` };
}

async function waitUntil(done) {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 200));
}
