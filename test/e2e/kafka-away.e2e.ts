import { Client } from "pg";
import {
  createDataset,
  freePort,
  startOwnKafka,
  startWithTenants,
  uploadFiles,
  waitFor,
  type ApiClient,
  type HarnessServer,
  type TestPlatform,
  type TestTenant,
  LEGACY_TRIGGERS,
} from "@hangar/test-harness";

// Start and recover without waiting on Kafka (issue 9, finding 10): a platform whose broker is not
// there yet starts and takes uploads, since the outbox holds their events; once a broker listens
// where it looks, the consumers join in the background and the trigger's invocation follows, once;
// and after a kill -9 of the broker, an upload made while it is down does the same once it is back.

let port: number;
let t: TestPlatform;
let alice: TestTenant;
let broker: HarnessServer<{ brokers: string }> | undefined;
let db: Client;
let triggerId: string;

beforeAll(async () => {
  port = await freePort();
  [t, alice] = await startWithTenants(["kafka-away"], { kafka: true, kafkaBrokers: `127.0.0.1:${port}` });
  db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await t?.close();
  await broker?.stop();
});

async function ok(res: Promise<{ status: number; body: any }>): Promise<any> {
  const { status, body } = await res;
  expect({ status, error: body.error }).toEqual({ status: 200, error: undefined });
  return body.data;
}

async function invocationsOf(client: ApiClient, triggerId: string): Promise<unknown[]> {
  const page = await ok(client.post("/v1/actions/invocations/query", { condition: { field: "provenance.source.source_id", comparator: "EQUALS", value: triggerId } }));
  return page.items;
}

const unpublished = async () => (await db.query("select count(*)::int as n from data.outbox where published is null")).rows[0].n as number;

test("with the broker away the platform serves uploads, and the trigger's invocation follows once a broker is there", async () => {
  expect(t.transport.status()).toBe("connecting");
  await ok(alice.client.post("/v1/actions", { name: "process", uri: "registry.example.com/process:1" }));
  const trigger = await ok(alice.client.post("/v1/triggers", { name: "on-upload", action_name: "process", for_each: "dataset", required_inputs: ["*.bag"] }, LEGACY_TRIGGERS));
  triggerId = trigger.trigger_id;
  const datasetId = await createDataset(alice.client, "away");
  await uploadFiles(alice.client, datasetId, { "run.bag": "bag" });
  expect(await unpublished()).toBeGreaterThan(0);
  expect(await invocationsOf(alice.client, trigger.trigger_id)).toEqual([]);

  broker = await startOwnKafka(port);
  await waitFor("the trigger's invocation", async () => ((await invocationsOf(alice.client, trigger.trigger_id)).length > 0 ? true : undefined));
  await waitFor("the consumers in their groups", async () => (t.transport.status() === "ready" ? true : undefined));
  await waitFor("the outbox drained", async () => ((await unpublished()) === 0 ? true : undefined));
  expect(await invocationsOf(alice.client, trigger.trigger_id)).toHaveLength(1);
}, 240_000);

test("after a kill -9 of the broker, an upload made while it is down invokes the trigger once the broker is back", async () => {
  await broker!.call("halt");
  const datasetId = await createDataset(alice.client, "while-killed");
  await uploadFiles(alice.client, datasetId, { "run.bag": "bag" });
  await broker!.call("resume");
  await waitFor("the second invocation", async () => ((await invocationsOf(alice.client, triggerId)).length === 2 ? true : undefined));
  await waitFor("the outbox drained", async () => ((await unpublished()) === 0 ? true : undefined));
  expect(await invocationsOf(alice.client, triggerId)).toHaveLength(2);
  expect((await db.query("select count(*)::int as n from compute.dead_letters")).rows[0].n).toBe(0);
}, 240_000);
