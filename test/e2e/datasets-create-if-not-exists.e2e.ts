import {
  expectBadRequest,
  startWithTenants,
  type ApiClient,
  type ApiResponse,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// create_dataset_from_query (POST /v1/datasets/create_if_not_exists): body
// {match_roboql_query or match_serviceql_query, create_request}.

const PATH = "/v1/datasets/create_if_not_exists";

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
});
afterAll(() => t?.close());

function createIfNotExists(client: ApiClient, body: unknown): Promise<ApiResponse> {
  return client.post(PATH, body);
}

/** The caller's datasets matching a JSON condition, oldest first, and their total count. */
async function matching(client: ApiClient, condition: unknown): Promise<{ ids: string[]; total: number }> {
  const res = await client.post("/v1/datasets/query", { condition, sort_by: "created", sort_direction: "ASC" });
  expect(res.status).toBe(200);
  return { ids: res.body.data.items.map((d: any) => d.dataset_id), total: res.body.data.total_count };
}

async function totalCount(client: ApiClient): Promise<number> {
  const res = await client.post("/v1/datasets/query", {});
  expect(res.status).toBe(200);
  return res.body.data.total_count;
}



describe("create_if_not_exists creates when nothing matches", () => {
  test("answers the created Dataset with every documented field, as get_dataset then returns it", async () => {
    const res = await createIfNotExists(alice.client, {
      match_roboql_query: "metadata.vehicle_id = 'new-1'",
      create_request: { name: "run", description: "d", device_id: "robot", metadata: { vehicle_id: "new-1" }, tags: ["a", "a"], custom_fields: { c: 1 } },
    });
    expect(res.status).toBe(200);
    const ds = res.body.data;
    expect(ds).toEqual({
      dataset_id: expect.stringMatching(/^ds_/),
      org_id: alice.orgId,
      created: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      created_by: alice.userId,
      modified: ds.created,
      modified_by: alice.userId,
      name: "run",
      description: "d",
      device_id: "robot",
      metadata: { vehicle_id: "new-1" },
      custom_fields: { c: 1 },
      tags: ["a"],
      service_record_version: 1,
      administrator: "Service",
      storage_ctx: {},
      storage_location: "S3",
    });
    expect((await alice.client.get(`/v1/datasets/${ds.dataset_id}`)).body).toEqual({ data: ds });
  });

  test("an empty create_request creates a dataset with the defaults", async () => {
    const res = await createIfNotExists(alice.client, { match_roboql_query: "metadata.never = 'there'", create_request: {} });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: null, description: null, device_id: null, metadata: {}, custom_fields: {}, tags: [] });
  });

  test("the spec's field name match_serviceql_query works as well", async () => {
    const res = await createIfNotExists(alice.client, {
      match_serviceql_query: "metadata.vehicle_id = 'svc-1'",
      create_request: { metadata: { vehicle_id: "svc-1" } },
    });
    expect(res.status).toBe(200);
    const again = await createIfNotExists(alice.client, {
      match_serviceql_query: "metadata.vehicle_id = 'svc-1'",
      create_request: { metadata: { vehicle_id: "svc-1" } },
    });
    expect(again.body.data.dataset_id).toBe(res.body.data.dataset_id);
  });
});

describe("create_if_not_exists returns an existing match", () => {
  test("a dataset matching the text query is returned unchanged and nothing is created", async () => {
    const existing = (await alice.client.post("/v1/datasets", { name: "existing", metadata: { vehicle_id: "v1" }, tags: ["t"] })).body.data;
    const before = await totalCount(alice.client);
    const res = await createIfNotExists(alice.client, {
      match_roboql_query: "metadata.vehicle_id = 'v1'",
      create_request: { name: "would-be-new", metadata: { vehicle_id: "v1" } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: existing });
    expect(await totalCount(alice.client)).toBe(before);
  });

  test("a query joining conditions with AND, OR and parentheses matches as written", async () => {
    const existing = (await alice.client.post("/v1/datasets", { metadata: { site: "lab-7" }, tags: ["warehouse"] })).body.data;
    const res = await createIfNotExists(alice.client, {
      match_roboql_query: "tags CONTAINS 'warehouse' AND (metadata.site = 'lab-7' OR metadata.site = 'lab-8')",
      create_request: {},
    });
    expect(res.body.data.dataset_id).toBe(existing.dataset_id);
  });

  test("a dataset that does not match does not count: a new one is created", async () => {
    await alice.client.post("/v1/datasets", { metadata: { vehicle_id: "other" } });
    const res = await createIfNotExists(alice.client, {
      match_roboql_query: "metadata.vehicle_id = 'fresh'",
      create_request: { metadata: { vehicle_id: "fresh" } },
    });
    expect(res.status).toBe(200);
    expect(await matching(alice.client, { field: "metadata.vehicle_id", comparator: "EQUALS", value: "fresh" })).toEqual({
      ids: [res.body.data.dataset_id],
      total: 1,
    });
  });

  // Several rounds: the first burst may be serialized while the service opens its pooled connections.
  test.each(["race-1", "race-2", "race-3"])("ten concurrent identical requests create exactly one dataset (%s)", async (key) => {
    const body = { match_roboql_query: `metadata.run_key = '${key}'`, create_request: { name: "raced", metadata: { run_key: key } } };
    const responses = await Promise.all(Array.from({ length: 10 }, () => createIfNotExists(alice.client, body)));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    const ids = new Set(responses.map((r) => r.body.data.dataset_id));
    expect(ids.size).toBe(1);
    expect(await matching(alice.client, { field: "metadata.run_key", comparator: "EQUALS", value: key })).toEqual({
      ids: [...ids],
      total: 1,
    });
  });

  test("concurrent requests spelling the same query differently still create exactly one dataset", async () => {
    const spellings = ["metadata.run_key = 'race-s'", "metadata.run_key='race-s'", 'metadata.run_key  =  "race-s"'];
    await createIfNotExists(alice.client, { match_roboql_query: "metadata.run_key = 'warm-up'", create_request: {} });
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        createIfNotExists(alice.client, { match_roboql_query: spellings[i % 3], create_request: { metadata: { run_key: "race-s" } } }),
      ),
    );
    expect(new Set(responses.map((r) => r.body.data.dataset_id)).size).toBe(1);
    expect((await matching(alice.client, { field: "metadata.run_key", comparator: "EQUALS", value: "race-s" })).total).toBe(1);
  });

  test("another org's matching dataset is never returned: the caller's org gets its own", async () => {
    const alices = (await alice.client.post("/v1/datasets", { metadata: { shared_key: "k1" } })).body.data;
    const aliceTotal = await totalCount(alice.client);
    const res = await createIfNotExists(bob.client, {
      match_roboql_query: "metadata.shared_key = 'k1'",
      create_request: { metadata: { shared_key: "k1" } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.dataset_id).not.toBe(alices.dataset_id);
    expect(res.body.data.org_id).toBe(bob.orgId);
    expect(await totalCount(alice.client)).toBe(aliceTotal);
  });
});

describe("create_if_not_exists refuses bad input with a 400 and writes nothing", () => {
  let before: number;

  beforeEach(async () => {
    before = await totalCount(alice.client);
  });
  afterEach(async () => {
    expect(await totalCount(alice.client)).toBe(before);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["a malformed query", { match_roboql_query: "metadata.vehicle_id = ", create_request: {} }, "match_roboql_query"],
    ["an unterminated string", { match_roboql_query: "name = 'x", create_request: {} }, "match_roboql_query"],
    ["an unknown comparator", { match_roboql_query: "name ABOUT 'x'", create_request: {} }, "match_roboql_query"],
    ["an unknown field", { match_roboql_query: "colour = 'red'", create_request: {} }, "match_roboql_query.field"],
    ["an unknown field under the spec's name", { match_serviceql_query: "colour = 'red'", create_request: {} }, "match_serviceql_query.field"],
    ["an empty query", { match_serviceql_query: "", create_request: {} }, "match_serviceql_query"],
    ["a number as the query", { match_roboql_query: 5, create_request: {} }, "match_roboql_query"],
    ["no query at all", { create_request: {} }, "match_serviceql_query"],
    ["a missing create_request", { match_roboql_query: "name = 'x'" }, "create_request"],
    ["a null create_request", { match_roboql_query: "name = 'x'", create_request: null }, "create_request"],
    ["a string as create_request", { match_roboql_query: "name = 'x'", create_request: "x" }, "create_request"],
    ["a 120-character name", { match_roboql_query: "name = 'nope'", create_request: { name: "n".repeat(120) } }, "create_request.name"],
    ["a number as the name", { match_roboql_query: "name = 'nope'", create_request: { name: 5 } }, "create_request.name"],
    ["a string as tags", { match_roboql_query: "name = 'nope'", create_request: { tags: "a" } }, "create_request.tags"],
    ["a list as metadata", { match_roboql_query: "name = 'nope'", create_request: { metadata: [1] } }, "create_request.metadata"],
  ])("%s", async (_, body, field) => {
    expectBadRequest(await createIfNotExists(alice.client, body), field);
  });
});

describe("create_if_not_exists ignores unknown body fields", () => {
  test("extra keys at the top level and inside create_request are ignored", async () => {
    const res = await createIfNotExists(alice.client, {
      match_roboql_query: "metadata.extra_test = 1",
      create_request: { name: "extra", metadata: { extra_test: 1 }, colour: "red" },
      dry_run: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: "extra", metadata: { extra_test: 1 } });
    expect(res.body.data).not.toHaveProperty("colour");
  });
});
