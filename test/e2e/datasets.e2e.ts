import { startWithTenants, type TestPlatform, type TestTenant } from "@hangar/test-harness";

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
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

  test("the name limit counts characters, not UTF-16 units: 119 emoji are accepted, 120 refused", async () => {
    const ok = await alice.client.post("/v1/datasets", { name: "🚀".repeat(119) });
    expect(ok.status).toBe(200);
    expect(ok.body.data.name).toBe("🚀".repeat(119));
    const tooLong = await alice.client.post("/v1/datasets", { name: "🚀".repeat(120) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.message).toMatch(/^name: /);
  });

  test("another org's dataset is 404 on get, update and delete", async () => {
    const ds = (await alice.client.post("/v1/datasets", { name: "private" })).body.data;
    expect((await bob.client.get(`/v1/datasets/${ds.dataset_id}`)).status).toBe(404);
    expect((await bob.client.put(`/v1/datasets/${ds.dataset_id}`, { description: "x" })).status).toBe(404);
    expect((await bob.client.delete(`/v1/datasets/${ds.dataset_id}`)).status).toBe(404);
    expect((await alice.client.get(`/v1/datasets/${ds.dataset_id}`)).body.data.description).toBeNull();
  });
});

describe("create_dataset input", () => {
  async function total(): Promise<number> {
    return (await alice.client.post("/v1/datasets/query", {})).body.data.total_count;
  }

  test("null for every field means the defaults (clients send full models)", async () => {
    const res = await alice.client.post("/v1/datasets", { name: null, description: null, device_id: null, metadata: null, tags: null, custom_fields: null });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: null, description: null, device_id: null, metadata: {}, tags: [], custom_fields: {} });
  });

  test("an empty body creates a dataset with the defaults", async () => {
    const res = await alice.client.raw("POST", "/v1/datasets", "");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ org_id: alice.orgId, name: null, metadata: {}, tags: [], custom_fields: {}, service_record_version: 1 });
  });

  test("unknown body fields are ignored", async () => {
    const res = await alice.client.post("/v1/datasets", { name: "extra", colour: "red", nested: { a: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.data.name).toBe("extra");
    expect(res.body.data).not.toHaveProperty("colour");
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["a number as name", { name: 5 }, "name"],
    ["an object as description", { description: { a: 1 } }, "description"],
    ["a number as device_id", { device_id: 7 }, "device_id"],
    ["a list as metadata", { metadata: [1] }, "metadata"],
    ["a string as metadata", { metadata: "x" }, "metadata"],
    ["a string as tags", { tags: "a" }, "tags"],
    ["a number among tags", { tags: ["a", 1] }, "tags[1]"],
    ["an empty tag", { tags: ["a", ""] }, "tags[1]"],
    ["a number as custom_fields", { custom_fields: 3 }, "custom_fields"],
  ])("%s is a 400 naming the field, and nothing is written", async (_, body, field) => {
    const before = await total();
    const res = await alice.client.post("/v1/datasets", { name: "bad", ...body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { error_code: 400, message: expect.stringMatching(new RegExp(`^${field.replace(/[[\]]/g, "\\$&")}: `)), stack_trace: "" } });
    expect(await total()).toBe(before);
  });

  test("a body that is not JSON is a 400, and nothing is written", async () => {
    const before = await total();
    const res = await alice.client.raw("POST", "/v1/datasets", "{name:");
    expect(res.status).toBe(400);
    expect(res.body.error.error_code).toBe(400);
    expect(await total()).toBe(before);
  });

  test("an unknown dataset is a 404 in the error envelope", async () => {
    const res = await alice.client.get("/v1/datasets/ds_doesnotexist000000");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { error_code: 404, message: expect.any(String), stack_trace: "" } });
  });
});
