import type { Admin } from "kafkajs";
import { Client } from "pg";
import { createLogger, startOutboxRelay, TOPICS } from "@hangar/shared";
import {
  apiClient,
  consumerCaughtUp as caughtUp,
  createTenant,
  kafkaAdmin as connectKafkaAdmin,
  messagesOnTopic as messagesOn,
  startTestPlatform,
  startWithTenants,
  waitFor,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// A dataset row written in a transaction (data service) takes effect exactly once at a consumer in
// another service (admin keeps each org's dataset count), through a real Kafka broker.

const USAGE = "datasets::total_count";
let t: TestPlatform;
let tenant: TestTenant;
let kafkaAdmin: Admin;
let db: Client;

beforeAll(async () => {
  [t, tenant] = await startWithTenants(["events"], { kafka: true });
  kafkaAdmin = await connectKafkaAdmin();
  db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await kafkaAdmin?.disconnect();
  await t?.close();
});

const topic = () => `${t.namespace}.${TOPICS.datasetChanged}`;

async function datasetCount(): Promise<number | undefined> {
  const res = await tenant.client.get(`/v1/orgs/id/${tenant.orgId}/usage`);
  return res.body.data.find((item: { resource_name: string }) => item.resource_name === USAGE)?.quantity;
}

/** Waits until the admin consumer group has committed every message on the topic. */
const consumerCaughtUp = () => caughtUp(kafkaAdmin, `${t.namespace}.admin.usage`, topic());

const messagesOnTopic = () => messagesOn(kafkaAdmin, topic());

async function createDatasets(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await tenant.client.post("/v1/datasets", { name: `e${i}` })).body.data.dataset_id);
  return ids;
}

test("creations and deletions reach the admin service's usage through Kafka", async () => {
  const ids = await createDatasets(3);
  await tenant.client.delete(`/v1/datasets/${ids[0]}`);
  expect(await waitFor("count 2", async () => ((await datasetCount()) === 2 ? 2 : undefined))).toBe(2);
  await consumerCaughtUp();
  expect(await messagesOnTopic()).toBe(4);
});

test("a redelivered event changes nothing", async () => {
  const before = await datasetCount();
  const published = await messagesOnTopic();
  // Re-publish every event the data service ever wrote, as a relay that lost its marks would.
  await db.query("update data.outbox set published = null");
  t.platform.services.data.relay.wake();
  await waitFor("the duplicates on the topic", async () => ((await messagesOnTopic()) === published * 2 ? true : undefined));
  await consumerCaughtUp();
  expect(await datasetCount()).toBe(before);
});

test("a running relay that crashes between publish and mark publishes again, and the effect stays single", async () => {
  await t.platform.services.data.relay.stop();
  const before = (await datasetCount())!;
  const published = await messagesOnTopic();
  await createDatasets(2);
  let publications = 0;
  const relay = startOutboxRelay({
    orm: t.platform.services.data.orm,
    transport: t.transport,
    logger: createLogger("test", "silent"),
    afterPublish: () => {
      if (++publications === 1) throw new Error("relay crashed before marking");
    },
  });
  try {
    await waitFor("the outbox drained", async () => ((await db.query("select count(*)::int as n from data.outbox where published is null")).rows[0].n === 0 ? true : undefined));
  } finally {
    await relay.stop();
  }
  expect(publications).toBe(2);
  // Both events went out twice: once before the crash and again after it.
  expect(await messagesOnTopic()).toBe(published + 4);
  await consumerCaughtUp();
  expect(await datasetCount()).toBe(before + 2);
});

test("a restarted platform resumes from the consumer group's offsets without double counting", async () => {
  const before = (await datasetCount())!;
  const previous = { databaseUrl: t.databaseUrl, namespace: t.namespace, adminToken: t.adminToken, internalAuthSecret: t.internalAuthSecret };
  await t.close();
  t = await startTestPlatform({ kafka: true, restartOf: previous });
  tenant = { ...tenant, client: apiClient(t.url, tenant.token) };
  await createDatasets(1);
  await waitFor("count +1", async () => ((await datasetCount()) === before + 1 ? true : undefined));
  await consumerCaughtUp();
  expect(await datasetCount()).toBe(before + 1);
});

test("a poison event goes to the dead-letter topic and table after bounded retries, and later events still flow", async () => {
  const before = (await datasetCount())!;
  await t.transport.publish([{ eventId: "poison-1", topic: TOPICS.datasetChanged, key: "x", payload: Uint8Array.from([0xff, 0xff, 0xff]), headers: {} }]);
  // Three consumers read dataset events (admin's usage; compute's legacy trigger evaluation and the
  // 0.62 triggers' dispatch): each dead-letters it.
  const deadIn = (schema: string, count: number) =>
    waitFor(`the dead letters in ${schema}`, async () => {
      const rows = (await db.query(`select consumer, topic, error from ${schema}.dead_letters where event_id = 'poison-1' order by consumer`)).rows;
      return rows.length === count ? rows : undefined;
    });
  expect(await deadIn("admin", 1)).toEqual([{ consumer: "admin.usage", topic: TOPICS.datasetChanged, error: expect.any(String) }]);
  expect(await deadIn("compute", 2)).toEqual([
    { consumer: "compute.trigger-dispatch", topic: TOPICS.datasetChanged, error: expect.any(String) },
    { consumer: "compute.trigger-evaluation", topic: TOPICS.datasetChanged, error: expect.any(String) },
  ]);
  // The dead letter is recorded, then published: the topic may trail the table for a moment.
  await waitFor("the dead-letter topic", async () => {
    const dlq = await kafkaAdmin.fetchTopicOffsets(`${topic()}.dlq`).catch(() => []);
    return dlq.reduce((sum, p) => sum + Number(p.high), 0) === 3 ? true : undefined;
  });
  await createDatasets(1);
  await waitFor("count +1 after the poison", async () => ((await datasetCount()) === before + 1 ? true : undefined));
});

test("the org of an event scopes its effect: another org's usage is untouched", async () => {
  const other = await createTenant(t, "events-other");
  const res = await other.client.get(`/v1/orgs/id/${other.orgId}/usage`);
  expect(res.body.data).toEqual([]);
});
