import type { Admin } from "kafkajs";
import { Client } from "pg";
import { fromBinary } from "@bufbuild/protobuf";
import { createLogger, relayBatch, startConsumer, TOPICS, type EventTransport } from "@hangar/shared";
import { UploadCompletedSchema } from "@hangar/shared/proto/events";
import {
  consumerCaughtUp,
  createDataset,
  kafkaAdmin,
  messagesOnTopic,
  startWithTenants,
  uploadFiles,
  waitFor,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// Completing an upload writes one upload-completed event per transaction through the data service's
// outbox; a consumer in another service (here a test consumer on the compute service's database)
// sees each completion exactly once in effect through a real Kafka broker, also after a redelivery
// and a relay crash between publish and mark.

const GROUP = "test.upload-completions";
let t: TestPlatform;
let tenant: TestTenant;
let admin: Admin;
let db: Client;

beforeAll(async () => {
  [t, tenant] = await startWithTenants(["uploads-events"], { kafka: true });
  admin = await kafkaAdmin();
  db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
  // The effect is a row per event, without a uniqueness guard: a second delivery would show.
  await db.query("create table compute.test_upload_completions (transaction_id text not null, association_id text not null, paths text[] not null)");
  await startConsumer({
    name: GROUP,
    topics: [TOPICS.uploadCompleted],
    orm: t.platform.services.compute.orm,
    transport: t.transport,
    logger: createLogger("test", "silent"),
    handler: async (em, message) => {
      const event = fromBinary(UploadCompletedSchema, message.payload);
      await em.execute("insert into test_upload_completions (transaction_id, association_id, paths) values (?, ?, ?::text[])", [
        event.transactionId,
        event.associationId,
        `{${event.files.map((f) => `"${f.relativePath}"`).join(",")}}`,
      ]);
    },
  });
});
afterAll(async () => {
  await db?.end();
  await admin?.disconnect();
  await t?.close();
});

const topic = () => `${t.namespace}.${TOPICS.uploadCompleted}`;
const caughtUp = () => consumerCaughtUp(admin, `${t.namespace}.${GROUP}`, topic());

async function completions(): Promise<{ transaction_id: string; association_id: string; paths: string[] }[]> {
  return (await db.query("select transaction_id, association_id, paths from compute.test_upload_completions order by transaction_id")).rows;
}

test("each completed transaction reaches the other service once, with its files", async () => {
  const datasetId = await createDataset(tenant.client);
  const first = await uploadFiles(tenant.client, datasetId, { "a.txt": "a", "dir/b.txt": "b" });
  const second = await uploadFiles(tenant.client, datasetId, { "c.txt": "c" });
  await waitFor("two completions", async () => ((await completions()).length === 2 ? true : undefined));
  await caughtUp();
  expect(await completions()).toEqual(
    [
      { transaction_id: first.transactionId, association_id: datasetId, paths: ["a.txt", "dir/b.txt"] },
      { transaction_id: second.transactionId, association_id: datasetId, paths: ["c.txt"] },
    ].sort((x, y) => x.transaction_id.localeCompare(y.transaction_id)),
  );
});

test("a redelivery of every upload event changes nothing", async () => {
  const before = await completions();
  const published = await messagesOnTopic(admin, topic());
  await db.query("update data.outbox set published = null where topic = $1", [TOPICS.uploadCompleted]);
  t.platform.services.data.relay.wake();
  await waitFor("the duplicates", async () => ((await messagesOnTopic(admin, topic())) === published * 2 ? true : undefined));
  await caughtUp();
  expect(await completions()).toEqual(before);
});

test("a relay crash between publish and mark publishes again; the completion still takes effect once", async () => {
  await t.platform.services.data.relay.stop();
  const datasetId = await createDataset(tenant.client);
  const { transactionId } = await uploadFiles(tenant.client, datasetId, { "crash.txt": "x" });
  const crashing: EventTransport = {
    ...t.transport,
    publish: async (messages) => {
      await t.transport.publish(messages);
      throw new Error("relay crashed before marking");
    },
  };
  await expect(relayBatch({ orm: t.platform.services.data.orm, transport: crashing })).rejects.toThrow("relay crashed");
  expect(await relayBatch({ orm: t.platform.services.data.orm, transport: t.transport })).toBeGreaterThanOrEqual(1);
  await waitFor("the completion", async () => ((await completions()).some((c) => c.transaction_id === transactionId) ? true : undefined));
  await caughtUp();
  expect((await completions()).filter((c) => c.transaction_id === transactionId)).toHaveLength(1);
});
