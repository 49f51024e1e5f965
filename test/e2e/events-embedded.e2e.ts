import { createInProcessTransport, createLogger, startConsumer } from "@hangar/shared";
import { createTenant, startTestPlatform, waitFor, type TestPlatform } from "@hangar/test-harness";

// The embedded default carries the same outbox events in process: the admin service's dataset
// count follows the data service's writes without Kafka.

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t?.close());

test("dataset creations and deletions reach the admin service in process", async () => {
  const tenant = await createTenant(t, "embedded-events");
  const a = (await tenant.client.post("/v1/datasets", { name: "a" })).body.data.dataset_id;
  await tenant.client.post("/v1/datasets", { name: "b" });
  await tenant.client.post("/v1/datasets", { name: "c" });
  await tenant.client.delete(`/v1/datasets/${a}`);
  const usage = await waitFor("usage 2", async () => {
    const res = await tenant.client.get(`/v1/orgs/id/${tenant.orgId}/usage`);
    return res.body.data[0]?.quantity === 2 ? res.body.data : undefined;
  });
  expect(usage).toEqual([{ resource_name: "datasets::total_count", quantity: 2, principal: { id: tenant.orgId, scope: "org" } }]);
});

test("a stopped consumer hands a failing event back instead of retrying or dead-lettering it", async () => {
  const transport = createInProcessTransport();
  const orm = t.platform.services.compute.orm;
  let attempted!: () => void;
  const firstAttempt = new Promise<void>((resolve) => (attempted = resolve));
  const consumer = await startConsumer({
    name: "test.stopping",
    topics: ["test.stopping.v1"],
    orm,
    transport,
    logger: createLogger("test", "silent"),
    retryDelayMs: 60_000,
    handler: async () => {
      attempted();
      throw new Error("the effect cannot be applied");
    },
  });
  const delivery = transport.publish([{ eventId: "stop-1", topic: "test.stopping.v1", key: "k", payload: new Uint8Array(), headers: {} }]);
  const handedBack = expect(delivery).rejects.toThrow("the effect cannot be applied");
  // The first attempt has failed and the consumer waits a minute to retry: stopping ends that wait.
  await firstAttempt;
  await consumer.stop();
  await handedBack;
  const dead = await orm.em.fork().getConnection().execute("select count(*)::int as n from dead_letters where event_id = 'stop-1'");
  expect(dead).toEqual([{ n: 0 }]);
  await expect(transport.publish([{ eventId: "stop-2", topic: "test.stopping.v1", key: "k", payload: new Uint8Array(), headers: {} }])).resolves.toBeUndefined();
});
