import { Client } from "pg";
import {
  startHttpSink,
  startTestPlatform,
  startWithTenants,
  waitFor,
  type HttpSink,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// Scheduled triggers (a v2 trigger with `fires_on: {type: "schedule"}`): two platforms, each with its
// own compute service and scheduler, run against one database with one clock the test moves forward
// (no sleeping). Each due tick fires exactly once across both, missed ticks are caught up, a
// record's time zone is honoured, and a replica's restart neither repeats nor skips a tick.

let now = new Date("2026-01-15T12:00:30Z");
const clock = () => now;
let t: TestPlatform;
let replica: TestPlatform;
let alice: TestTenant;
let sink: HttpSink;

beforeAll(async () => {
  sink = await startHttpSink();
  const compute = { slackWebhooks: { C_OPS: sink.url }, scheduler: { clock, intervalMs: 50 } };
  [t, alice] = await startWithTenants(["alice"], { compute });
  replica = await startTestPlatform({ compute, restartOf: t });
});
afterAll(async () => {
  await replica?.close();
  await t?.close();
  await sink?.close();
});

async function ok(res: Promise<{ status: number; body: any }>): Promise<any> {
  const answer = await res;
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status: 200, error: undefined });
  return answer.body.data;
}

let counter = 0;
async function schedule(cron: string, extra: Record<string, unknown> = {}): Promise<{ trigger_id: string; text: string }> {
  const text = `tick-${++counter}`;
  const fires_on = { type: "schedule", cron, ...extra };
  const trigger = await ok(alice.client.post("/v1/triggers", { name: `sched-${counter}`, fires_on, targets: [{ type: "send_slack_message", target_id: "post", channel_id: "C_OPS", text }] }));
  return { trigger_id: trigger.trigger_id, text };
}

async function dispatches(triggerId: string): Promise<any[]> {
  return (await ok(alice.client.get(`/v1/triggers/id/${triggerId}/dispatches`))).items;
}

/** Waits until the trigger has `count` finished dispatches, and returns their ticks, oldest first. */
async function ticksOf(triggerId: string, count: number): Promise<string[]> {
  const items = await waitFor(`${count} dispatches`, async () => {
    const found = await dispatches(triggerId);
    return found.length >= count && found.every((d) => d.status === "dispatched") ? found : undefined;
  });
  return items.map((d) => d.event_id.split("@")[1]).sort();
}

const posts = (text: string) => sink.received.filter((body: any) => body.text === text).length;

test("a schedule trigger reads back with its cron and once_per occurrence", async () => {
  const { trigger_id } = await schedule("*/5 * * * *");
  expect(await ok(alice.client.get(`/v1/triggers/id/${trigger_id}`))).toMatchObject({ engine: "v2", fires_on: { type: "schedule", cron: "*/5 * * * *", once_per: "occurrence" } });
  await ok(alice.client.put(`/v1/triggers/id/${trigger_id}`, { enabled: false }));
});

test("each due tick fires exactly once across two replicas, and missed ticks are caught up", async () => {
  const triggers = await Promise.all(Array.from({ length: 20 }, () => schedule("* * * * *")));
  now = new Date("2026-01-15T12:01:00.500Z");
  for (const { trigger_id } of triggers) expect(await ticksOf(trigger_id, 1)).toEqual(["2026-01-15T12:01:00.000Z"]);
  now = new Date("2026-01-15T12:04:10Z");
  const expected = ["2026-01-15T12:01:00.000Z", "2026-01-15T12:02:00.000Z", "2026-01-15T12:03:00.000Z", "2026-01-15T12:04:00.000Z"];
  for (const { trigger_id, text } of triggers) {
    expect(await ticksOf(trigger_id, 4)).toEqual(expected);
    expect(posts(text)).toBe(4);
  }
  for (const { trigger_id } of triggers) await ok(alice.client.put(`/v1/triggers/id/${trigger_id}`, { enabled: false }));
});

test("the record's time zone sets the wall clock: 09:00 in New York is 14:00 UTC in January", async () => {
  const utc = await schedule("0 9 * * *");
  const newYork = await schedule("0 9 * * *", { timezone: "America/New_York" });
  expect((await ok(alice.client.get(`/v1/triggers/id/${newYork.trigger_id}`))).fires_on).toEqual({ type: "schedule", cron: "0 9 * * *", once_per: "occurrence", timezone: "America/New_York" });
  now = new Date("2026-01-16T09:00:20Z");
  expect(await ticksOf(utc.trigger_id, 1)).toEqual(["2026-01-16T09:00:00.000Z"]);
  expect(await dispatches(newYork.trigger_id)).toEqual([]);
  now = new Date("2026-01-16T14:00:20Z");
  expect(await ticksOf(newYork.trigger_id, 1)).toEqual(["2026-01-16T14:00:00.000Z"]);
  for (const { trigger_id } of [utc, newYork]) await ok(alice.client.put(`/v1/triggers/id/${trigger_id}`, { enabled: false }));
});

test("a replica's restart neither repeats nor skips a tick", async () => {
  const { trigger_id, text } = await schedule("*/10 * * * *");
  now = new Date("2026-01-16T14:10:05Z");
  expect(await ticksOf(trigger_id, 1)).toEqual(["2026-01-16T14:10:00.000Z"]);
  await replica.close();
  replica = await startTestPlatform({ compute: { slackWebhooks: { C_OPS: sink.url }, scheduler: { clock, intervalMs: 50 } }, restartOf: t });
  now = new Date("2026-01-16T14:30:05Z");
  expect(await ticksOf(trigger_id, 3)).toEqual(["2026-01-16T14:10:00.000Z", "2026-01-16T14:20:00.000Z", "2026-01-16T14:30:00.000Z"]);
  expect(posts(text)).toBe(3);
  await ok(alice.client.put(`/v1/triggers/id/${trigger_id}`, { enabled: false }));
});

test("ticks missed while disabled do not fire on re-enabling; the next one does", async () => {
  const { trigger_id } = await schedule("0 * * * *");
  await ok(alice.client.put(`/v1/triggers/id/${trigger_id}`, { enabled: false }));
  now = new Date("2026-01-16T15:30:00Z");
  await ok(alice.client.put(`/v1/triggers/id/${trigger_id}`, { enabled: true }));
  now = new Date("2026-01-16T16:00:10Z");
  expect(await ticksOf(trigger_id, 1)).toEqual(["2026-01-16T16:00:00.000Z"]);
  await ok(alice.client.put(`/v1/triggers/id/${trigger_id}`, { enabled: false }));
});

test("a dry run of a schedule trigger takes the next tick or a given minute, and dispatches nothing", async () => {
  const { trigger_id } = await schedule("30 * * * *");
  const next = await ok(alice.client.post(`/v1/triggers/id/${trigger_id}/dry-run`, {}));
  expect(next).toMatchObject({ trigger_id, event_type: "schedule.fired", would_fire: true, verdict: "would fire" });
  expect(next.gates.at(-1).idempotency_token).toBe(`schedule.fired|occurrence:${trigger_id}@2026-01-16T16:30:00.000Z`);
  const given = await ok(alice.client.post(`/v1/triggers/id/${trigger_id}/dry-run`, { scheduled_for: "2026-02-01T08:30:00Z" }));
  expect(given.gates.at(-1).idempotency_token).toBe(`schedule.fired|occurrence:${trigger_id}@2026-02-01T08:30:00.000Z`);
  expect(await dispatches(trigger_id)).toEqual([]);
});

test("a dispatch left claimed by a crash (claim committed, target never run) runs once its lease lapses; a live claim is left alone", async () => {
  // What a replica killed between claim and run leaves: the tick's dispatch row, `claimed`, and no post.
  const stale = await schedule("0 0 1 1 *");
  const live = await schedule("0 0 1 1 *");
  const db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
  try {
    const claim = (triggerId: string, tick: string, claimedAt: Date) =>
      db.query(
        `insert into compute.trigger_dispatches (trigger_id, org_id, idempotency_token, target_id, target_type, event_type, event_id, subject, status, claimed_at)
         values ($1, $2, $3, 'post', 'send_slack_message', 'schedule.fired', $4, $5, 'claimed', $6)`,
        [triggerId, alice.orgId, `schedule.fired|occurrence:${triggerId}@${tick}`, `${triggerId}@${tick}`, `roboto://${alice.orgId}/trigger/${triggerId}`, claimedAt],
      );
    await claim(stale.trigger_id, "2026-01-16T16:00:00.000Z", new Date(now.getTime() - 6 * 60_000));
    await claim(live.trigger_id, "2026-01-16T16:00:00.000Z", new Date(now.getTime() - 60_000));
    const [retried] = await waitFor("the stale claim to be run", async () => {
      const found = await dispatches(stale.trigger_id);
      return found[0]?.status === "dispatched" ? found : undefined;
    });
    expect(retried).toMatchObject({ event_id: `${stale.trigger_id}@2026-01-16T16:00:00.000Z`, status: "dispatched", target_id: "post" });
    expect(posts(stale.text)).toBe(1);
    // The pass that took the stale claim over saw the live one and left it: its replica may still run it.
    expect((await dispatches(live.trigger_id)).map((d) => d.status)).toEqual(["claimed"]);
    expect(posts(live.text)).toBe(0);
    // Past its own lease it is taken over too, once.
    now = new Date(now.getTime() + 5 * 60_000);
    await waitFor("the second claim to be run", async () => ((await dispatches(live.trigger_id))[0]?.status === "dispatched" ? true : undefined));
    expect(posts(live.text)).toBe(1);
    expect(posts(stale.text)).toBe(1);
  } finally {
    await db.end();
  }
  for (const { trigger_id } of [stale, live]) await ok(alice.client.put(`/v1/triggers/id/${trigger_id}`, { enabled: false }));
});
