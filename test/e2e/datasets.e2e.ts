import { createTenant, startTestPlatform, type TestPlatform, type TestTenant } from "@hangar/test-harness";

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  t = await startTestPlatform();
  alice = await createTenant(t, "alice");
  bob = await createTenant(t, "bob");
});
afterAll(() => t?.close());

describe("create_dataset and get_dataset", () => {
  test("creates a dataset with every documented field and reads it back", async () => {
    const created = await alice.client.post("/v1/datasets", { name: "run-1", description: "first run", metadata: { vehicle: { id: "v1" } }, tags: ["a", "b", "a"] });
    expect(created.status).toBe(200);
    const ds = created.body.data;
    expect(ds).toEqual({
      dataset_id: expect.stringMatching(/^ds_[0-9a-z]{20}$/),
      org_id: alice.orgId,
      created: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      created_by: alice.userId,
      modified: ds.created,
      modified_by: alice.userId,
      name: "run-1",
      description: "first run",
      device_id: null,
      metadata: { vehicle: { id: "v1" } },
      custom_fields: {},
      tags: ["a", "b"],
      service_record_version: 1,
      administrator: "Service",
      storage_ctx: {},
      storage_location: "S3",
    });
    const got = await alice.client.get(`/v1/datasets/${ds.dataset_id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ data: ds });
  });

  test("a name of 120 characters is refused with a 400 naming the field, and nothing is written", async () => {
    const before = await alice.client.post("/v1/datasets/query", {});
    const res = await alice.client.post("/v1/datasets", { name: "x".repeat(120) });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^name: /);
    expect(res.body.error).toEqual({ error_code: 400, message: expect.any(String), stack_trace: "" });
    const after = await alice.client.post("/v1/datasets/query", {});
    expect(after.body.data.total_count).toBe(before.body.data.total_count);
  });

  test("a name of 119 characters is accepted", async () => {
    const res = await alice.client.post("/v1/datasets", { name: "y".repeat(119) });
    expect(res.status).toBe(200);
  });

  test("another org's dataset is 404 on get, update and delete", async () => {
    const ds = (await alice.client.post("/v1/datasets", { name: "private" })).body.data;
    expect((await bob.client.get(`/v1/datasets/${ds.dataset_id}`)).status).toBe(404);
    expect((await bob.client.put(`/v1/datasets/${ds.dataset_id}`, { description: "x" })).status).toBe(404);
    expect((await bob.client.delete(`/v1/datasets/${ds.dataset_id}`)).status).toBe(404);
    expect((await alice.client.get(`/v1/datasets/${ds.dataset_id}`)).body.data.description).toBeNull();
  });
});
