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
