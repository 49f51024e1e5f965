import { randomBytes } from "node:crypto";
import {
  apiClient,
  createTenant,
  expectBadRequest,
  startWithTenants,
  type ApiClient,
  type ApiResponse,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// update_dataset (PUT /v1/datasets/{dataset_id}) and delete_dataset (DELETE /v1/datasets/{dataset_id}).

let t: TestPlatform;
let alice: TestTenant;
/** A second member of alice's org, to see who modified a record. */
let carol: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["alice"]);
  carol = await addMember(t, alice, "carol");
  bob = await createTenant(t, "bob");
});
afterAll(() => t?.close());

/** Adds a user with an API token to an existing tenant's org, the way createTenant makes its user. */
async function addMember(platform: TestPlatform, tenant: TestTenant, name: string): Promise<TestTenant> {
  const userId = `${name}-${randomBytes(3).toString("hex")}@example.com`;
  const user = await platform.admin.post("/v1/users", { user_id: userId, org_id: tenant.orgId }, { "X-Service-Org-Id": tenant.orgId });
  if (user.status !== 200) throw new Error(`create user failed: ${JSON.stringify(user.body)}`);
  const token = await platform.admin.post("/v1/tokens", { name: "test", expiry_days: 1 }, { "X-Service-User-Id": userId });
  if (token.status !== 200) throw new Error(`create token failed: ${JSON.stringify(token.body)}`);
  return { orgId: tenant.orgId, userId, token: token.body.data.secret, client: apiClient(platform.url, token.body.data.secret) };
}

async function createDataset(client: ApiClient, body: Record<string, unknown> = {}): Promise<any> {
  const res = await client.post("/v1/datasets", body);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function getDataset(client: ApiClient, datasetId: string): Promise<any> {
  const res = await client.get(`/v1/datasets/${datasetId}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

function updateDataset(client: ApiClient, datasetId: string, body: unknown): Promise<ApiResponse> {
  return client.put(`/v1/datasets/${datasetId}`, body);
}

/** Updates and returns the record the update answered, which must equal what a read returns. */
async function updated(client: ApiClient, datasetId: string, body: unknown): Promise<any> {
  const res = await updateDataset(client, datasetId, body);
  expect(res.status).toBe(200);
  expect(await getDataset(client, datasetId)).toEqual(res.body.data);
  return res.body.data;
}



async function queryIds(client: ApiClient): Promise<{ ids: string[]; total: number }> {
  const res = await client.post("/v1/datasets/query", {});
  expect(res.status).toBe(200);
  return { ids: res.body.data.items.map((d: any) => d.dataset_id), total: res.body.data.total_count };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("update_dataset: scalar fields", () => {
  test("answers the whole updated record, equal to what get_dataset then returns", async () => {
    const ds = await createDataset(alice.client, { name: "n", metadata: { a: 1 }, tags: ["t"] });
    const res = await updateDataset(alice.client, ds.dataset_id, { name: "renamed", description: "d", device_id: "robot-1" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        ...ds,
        name: "renamed",
        description: "d",
        device_id: "robot-1",
        modified: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        service_record_version: 2,
      },
    });
    expect(await getDataset(alice.client, ds.dataset_id)).toEqual(res.body.data);
  });

  test("an omitted field is left unchanged", async () => {
    const ds = await createDataset(alice.client, { name: "keep", description: "old", device_id: "dev", metadata: { m: 1 }, tags: ["x"] });
    const after = await updated(alice.client, ds.dataset_id, { description: "new" });
    expect(after).toMatchObject({ name: "keep", description: "new", device_id: "dev", metadata: { m: 1 }, tags: ["x"], custom_fields: {} });
  });

  test.each(["description", "device_id", "name"])("an explicit null clears %s", async (field) => {
    const ds = await createDataset(alice.client, { name: "n", description: "d", device_id: "dev" });
    const after = await updated(alice.client, ds.dataset_id, { [field]: null });
    expect(after[field]).toBeNull();
    const others = ["description", "device_id", "name"].filter((f) => f !== field);
    for (const other of others) expect(after[other]).toBe(ds[other]);
  });

  test("an empty body changes no field but still counts as an update", async () => {
    const ds = await createDataset(alice.client, { name: "same", metadata: { a: 1 } });
    const after = await updated(alice.client, ds.dataset_id, {});
    expect(after).toEqual({ ...ds, modified: after.modified, service_record_version: 2 });
  });

  test("service_record_version increments by one on every update; created and created_by stay", async () => {
    const ds = await createDataset(alice.client, { name: "v" });
    expect(ds.service_record_version).toBe(1);
    const first = await updated(alice.client, ds.dataset_id, { description: "1" });
    const second = await updated(alice.client, ds.dataset_id, { description: "2" });
    expect([first.service_record_version, second.service_record_version]).toEqual([2, 3]);
    expect([second.created, second.created_by]).toEqual([ds.created, alice.userId]);
  });

  test("concurrent updates each keep their changes: ten metadata keys put at once all stay, version 11", async () => {
    const ds = await createDataset(alice.client, { name: "concurrent" });
    const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
    const answers = await Promise.all(keys.map((key) => alice.client.put(`/v1/datasets/${ds.dataset_id}`, { metadata_changeset: { put_fields: { [key]: key } } })));
    expect(answers.map((a) => a.status)).toEqual(keys.map(() => 200));
    const after = (await alice.client.get(`/v1/datasets/${ds.dataset_id}`)).body.data;
    expect(after.metadata).toEqual(Object.fromEntries(keys.map((key) => [key, key])));
    expect(after.service_record_version).toBe(11);
  });

  test("modified and modified_by record the last updater", async () => {
    const ds = await createDataset(alice.client, { name: "who" });
    await sleep(5);
    const after = await updated(carol.client, ds.dataset_id, { description: "by carol" });
    expect(after.modified_by).toBe(carol.userId);
    expect(after.created_by).toBe(alice.userId);
    expect(Date.parse(after.modified)).toBeGreaterThan(Date.parse(ds.modified));
  });

  test("a name of 119 characters is accepted", async () => {
    const ds = await createDataset(alice.client, { name: "short" });
    expect((await updated(alice.client, ds.dataset_id, { name: "n".repeat(119) })).name).toBe("n".repeat(119));
  });

  test("the name limit counts characters: 119 emoji are accepted", async () => {
    const ds = await createDataset(alice.client, { name: "short" });
    expect((await updated(alice.client, ds.dataset_id, { name: "🛰".repeat(119) })).name).toBe("🛰".repeat(119));
  });

  test("a name of 120 characters is a 400 naming `name`, and nothing changes", async () => {
    const ds = await createDataset(alice.client, { name: "short" });
    expectBadRequest(await updateDataset(alice.client, ds.dataset_id, { name: "n".repeat(120), description: "changed" }), "name");
    expect(await getDataset(alice.client, ds.dataset_id)).toEqual(ds);
  });
});

describe("update_dataset: bad input is a 400 naming the field and changes nothing", () => {
  test.each<[string, Record<string, unknown>, string]>([
    ["a number as name", { name: 5 }, "name"],
    ["a list as description", { description: ["x"] }, "description"],
    ["an object as device_id", { device_id: { id: 1 } }, "device_id"],
    ["a string as metadata_changeset", { metadata_changeset: "x" }, "metadata_changeset"],
    ["a string as put_tags", { metadata_changeset: { put_tags: "x" } }, "metadata_changeset.put_tags"],
    ["a number among put_tags", { metadata_changeset: { put_tags: ["ok", 5] } }, "metadata_changeset.put_tags[1]"],
    ["an empty tag in put_tags", { metadata_changeset: { put_tags: ["ok", ""] } }, "metadata_changeset.put_tags[1]"],
    ["a string as remove_tags", { metadata_changeset: { remove_tags: "x" } }, "metadata_changeset.remove_tags"],
    ["a list as put_fields", { metadata_changeset: { put_fields: ["a"] } }, "metadata_changeset.put_fields"],
    ["a string as remove_fields", { metadata_changeset: { remove_fields: "a" } }, "metadata_changeset.remove_fields"],
    ["a string as replace_all", { metadata_changeset: { replace_all: "yes" } }, "metadata_changeset.replace_all"],
    ["an empty put_fields path segment", { metadata_changeset: { put_fields: { "a..b": 1 } } }, "metadata_changeset.put_fields"],
    ["an empty remove_fields path segment", { metadata_changeset: { remove_fields: ["a."] } }, "metadata_changeset.remove_fields"],
    ["a list index past the end", { metadata_changeset: { put_fields: { "list.3": "x" } } }, "metadata_changeset.put_fields.list.3"],
    ["a non-numeric segment into a list", { metadata_changeset: { put_fields: { "list.first": "x" } } }, "metadata_changeset.put_fields.list.first"],
    ["a number as custom_fields_changeset.put_fields", { custom_fields_changeset: { put_fields: 3 } }, "custom_fields_changeset.put_fields"],
    ["an empty custom field path segment", { custom_fields_changeset: { put_fields: { ".a": 1 } } }, "custom_fields_changeset.put_fields"],
  ])("%s", async (_, body, field) => {
    const ds = await createDataset(alice.client, { name: "bad-input", description: "d", metadata: { list: ["a", "b"] }, tags: ["x"] });
    // A valid edit rides along with the bad one: nothing of the request may be applied.
    expectBadRequest(await updateDataset(alice.client, ds.dataset_id, { description: "changed", ...body }), field);
    expect(await getDataset(alice.client, ds.dataset_id)).toEqual(ds);
  });

  test("a body that is not a JSON object is a 400", async () => {
    const ds = await createDataset(alice.client, { name: "raw" });
    const res = await alice.client.raw("PUT", `/v1/datasets/${ds.dataset_id}`, "[1]");
    expect(res.status).toBe(400);
    expect(await getDataset(alice.client, ds.dataset_id)).toEqual(ds);
  });

  test("unknown body fields are ignored, at the top level and inside a changeset", async () => {
    const ds = await createDataset(alice.client, { name: "extra" });
    const after = await updated(alice.client, ds.dataset_id, {
      description: "ok",
      conditions: [{ x: 1 }],
      surprise: { nested: true },
      metadata_changeset: { put_tags: ["t"], unknown: 1 },
    });
    expect(after).toMatchObject({ description: "ok", tags: ["t"] });
  });

  test("an unknown dataset is a 404", async () => {
    const res = await updateDataset(alice.client, "ds_doesnotexist000000", { description: "x" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { error_code: 404, message: expect.any(String), stack_trace: "" } });
  });

  test("another org's caller gets a 404 and the dataset is unchanged", async () => {
    const ds = await createDataset(alice.client, { name: "mine", metadata: { a: 1 }, tags: ["t"] });
    const res = await updateDataset(bob.client, ds.dataset_id, { name: "stolen", metadata_changeset: { replace_all: true } });
    expect(res.status).toBe(404);
    expect(await getDataset(alice.client, ds.dataset_id)).toEqual(ds);
  });
});

describe("update_dataset: metadata_changeset", () => {
  async function metadataAfter(metadata: Record<string, unknown>, changeset: Record<string, unknown>): Promise<unknown> {
    const ds = await createDataset(alice.client, { metadata });
    return (await updated(alice.client, ds.dataset_id, { metadata_changeset: changeset })).metadata;
  }

  async function tagsAfter(tags: string[], changeset: Record<string, unknown>): Promise<unknown> {
    const ds = await createDataset(alice.client, { tags });
    return (await updated(alice.client, ds.dataset_id, { metadata_changeset: changeset })).tags;
  }

  test("put_fields dot paths set values, creating nested objects as needed", async () => {
    const metadata = await metadataAfter(
      { vehicle: { id: "v1" }, keep: true },
      { put_fields: { "vehicle.model": "m2", "a.b.c": 1, top: "x", obj: { inner: [1, 2] } } },
    );
    expect(metadata).toEqual({ vehicle: { id: "v1", model: "m2" }, keep: true, a: { b: { c: 1 } }, top: "x", obj: { inner: [1, 2] } });
  });

  test("put_fields overwrites an existing value, also a scalar on the way to a nested path", async () => {
    expect(await metadataAfter({ a: 1, b: { c: 2 } }, { put_fields: { "a.x": "nested", b: null } })).toEqual({ a: { x: "nested" }, b: null });
  });

  test("numeric segments index lists: replace an element, append one past the end, descend into one", async () => {
    const metadata = await metadataAfter(
      { list: ["a", "b"], runs: [{ id: 1 }, { id: 2 }] },
      { put_fields: { "list.1": "B", "list.2": "c", "runs.0.ok": true } },
    );
    expect(metadata).toEqual({ list: ["a", "B", "c"], runs: [{ id: 1, ok: true }, { id: 2 }] });
  });

  test("remove_fields removes dot paths and list elements by index; missing paths are ignored", async () => {
    const metadata = await metadataAfter(
      { vehicle: { id: "v1", model: "m" }, list: ["a", "b", "c"], keep: 1 },
      { remove_fields: ["vehicle.model", "list.0", "nope.x", "keep.deeper"] },
    );
    expect(metadata).toEqual({ vehicle: { id: "v1" }, list: ["b", "c"], keep: 1 });
  });

  test("put_tags adds tags after the existing ones, without duplicates", async () => {
    expect(await tagsAfter(["a", "b"], { put_tags: ["b", "c", "c"] })).toEqual(["a", "b", "c"]);
  });

  test("remove_tags removes the named tags; absent ones are ignored", async () => {
    expect(await tagsAfter(["a", "b", "c"], { remove_tags: ["b", "zz"] })).toEqual(["a", "c"]);
  });

  test("a changeset without replace_all leaves metadata it does not name, and tags, alone", async () => {
    const ds = await createDataset(alice.client, { metadata: { a: 1, b: 2 }, tags: ["t"] });
    const after = await updated(alice.client, ds.dataset_id, { metadata_changeset: { put_fields: { c: 3 } } });
    expect([after.metadata, after.tags]).toEqual([{ a: 1, b: 2, c: 3 }, ["t"]]);
  });

  test("replace_all replaces the metadata and the tags with what the changeset puts", async () => {
    const ds = await createDataset(alice.client, { metadata: { old: 1, vehicle: { id: "v" } }, tags: ["a", "b"] });
    const after = await updated(alice.client, ds.dataset_id, {
      metadata_changeset: { replace_all: true, put_fields: { "new.x": 1 }, put_tags: ["n"] },
    });
    expect([after.metadata, after.tags]).toEqual([{ new: { x: 1 } }, ["n"]]);
  });

  test("replace_all with nothing put empties metadata and tags", async () => {
    const ds = await createDataset(alice.client, { metadata: { a: 1 }, tags: ["a"] });
    const after = await updated(alice.client, ds.dataset_id, { metadata_changeset: { replace_all: true } });
    expect([after.metadata, after.tags]).toEqual([{}, []]);
  });

  test("replace_all leaves custom_fields alone", async () => {
    const ds = await createDataset(alice.client, { metadata: { a: 1 }, custom_fields: { owner: "ops" } });
    const after = await updated(alice.client, ds.dataset_id, { metadata_changeset: { replace_all: true } });
    expect(after.custom_fields).toEqual({ owner: "ops" });
  });

  test("a changeset whose fields are all null is no edit (clients send full models)", async () => {
    const ds = await createDataset(alice.client, { metadata: { a: 1 }, tags: ["t"] });
    const after = await updated(alice.client, ds.dataset_id, {
      metadata_changeset: { put_tags: null, remove_tags: null, put_fields: null, remove_fields: null, replace_all: null },
      custom_fields_changeset: null,
    });
    expect([after.metadata, after.tags]).toEqual([{ a: 1 }, ["t"]]);
  });

  test("`__proto__` in a path is an ordinary key, as it is in create_dataset", async () => {
    const ds = await createDataset(alice.client, { metadata: { a: 1 } });
    const after = await updated(alice.client, ds.dataset_id, { metadata_changeset: { put_fields: { "__proto__.polluted": "yes" } } });
    expect(after.metadata).toEqual(JSON.parse('{"a": 1, "__proto__": {"polluted": "yes"}}'));
    const removed = await updated(alice.client, ds.dataset_id, { metadata_changeset: { remove_fields: ["__proto__"] } });
    expect(Object.keys(removed.metadata)).toEqual(["a"]);
  });
});

describe("update_dataset: custom_fields_changeset", () => {
  test("put_fields and remove_fields edit custom_fields with dot paths; metadata and tags stay", async () => {
    const ds = await createDataset(alice.client, { metadata: { m: 1 }, tags: ["t"], custom_fields: { owner: "ops", review: { state: "open" } } });
    const after = await updated(alice.client, ds.dataset_id, {
      custom_fields_changeset: { put_fields: { "review.by": "carol", priority: 2 }, remove_fields: ["owner"] },
    });
    expect(after.custom_fields).toEqual({ review: { state: "open", by: "carol" }, priority: 2 });
    expect([after.metadata, after.tags]).toEqual([{ m: 1 }, ["t"]]);
  });

  test("replace_all replaces custom_fields with what the changeset puts", async () => {
    const ds = await createDataset(alice.client, { custom_fields: { a: 1, b: 2 } });
    const after = await updated(alice.client, ds.dataset_id, { custom_fields_changeset: { replace_all: true, put_fields: { c: 3 } } });
    expect(after.custom_fields).toEqual({ c: 3 });
  });

  test("both changesets apply in one request", async () => {
    const ds = await createDataset(alice.client, {});
    const after = await updated(alice.client, ds.dataset_id, {
      metadata_changeset: { put_fields: { m: 1 }, put_tags: ["t"] },
      custom_fields_changeset: { put_fields: { c: 2 } },
    });
    expect([after.metadata, after.tags, after.custom_fields]).toEqual([{ m: 1 }, ["t"], { c: 2 }]);
  });
});

describe("delete_dataset", () => {
  let dave: TestTenant;

  beforeAll(async () => {
    dave = await createTenant(t, "dave");
  });

  test("answers 200 with data null; then get is a 404 and query no longer lists or counts it", async () => {
    const keep = await createDataset(dave.client, { name: "keep" });
    const gone = await createDataset(dave.client, { name: "gone" });
    const before = await queryIds(dave.client);
    const res = await dave.client.delete(`/v1/datasets/${gone.dataset_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: null });
    expect((await dave.client.get(`/v1/datasets/${gone.dataset_id}`)).status).toBe(404);
    const after = await queryIds(dave.client);
    expect(after.ids).not.toContain(gone.dataset_id);
    expect(after.ids).toContain(keep.dataset_id);
    expect(after.total).toBe(before.total - 1);
  });

  test("a deleted dataset's metadata keys are no longer listed", async () => {
    const ds = await createDataset(dave.client, { metadata: { only_on_deleted: 1 } });
    expect((await dave.client.get("/v1/datasets/metadata/keys")).body.data).toContain("only_on_deleted");
    expect((await dave.client.delete(`/v1/datasets/${ds.dataset_id}`)).status).toBe(200);
    expect((await dave.client.get("/v1/datasets/metadata/keys")).body.data).not.toContain("only_on_deleted");
  });

  test("update and the permission operations on a deleted dataset are 404", async () => {
    const ds = await createDataset(dave.client, { name: "x" });
    await dave.client.put(`/v1/datasets/${ds.dataset_id}/access`, { add: [{ user: "someone", relation: "viewer", obj: "" }] });
    expect((await dave.client.delete(`/v1/datasets/${ds.dataset_id}`)).status).toBe(200);
    expect((await updateDataset(dave.client, ds.dataset_id, { name: "y" })).status).toBe(404);
    expect((await dave.client.get(`/v1/datasets/${ds.dataset_id}/access`)).status).toBe(404);
    expect((await dave.client.put(`/v1/datasets/${ds.dataset_id}/access`, { add: [] })).status).toBe(404);
  });

  test("deleting twice is a 404 the second time", async () => {
    const ds = await createDataset(dave.client, { name: "twice" });
    expect((await dave.client.delete(`/v1/datasets/${ds.dataset_id}`)).status).toBe(200);
    const again = await dave.client.delete(`/v1/datasets/${ds.dataset_id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: { error_code: 404, message: expect.any(String), stack_trace: "" } });
  });

  test("another org's caller gets a 404 and the dataset stays", async () => {
    const ds = await createDataset(dave.client, { name: "not-bobs" });
    expect((await bob.client.delete(`/v1/datasets/${ds.dataset_id}`)).status).toBe(404);
    expect(await getDataset(dave.client, ds.dataset_id)).toEqual(ds);
  });
});

describe("update_dataset with very deep dot paths", () => {
  test("a put_fields path deeper than 30 segments is a 400 naming the key, and the dataset stays readable", async () => {
    const ds = await createDataset(alice.client, { name: "deep" });
    const deepKey = Array.from({ length: 31 }, (_, i) => `k${i}`).join(".");
    const res = await updateDataset(alice.client, ds.dataset_id, { metadata_changeset: { put_fields: { [deepKey]: 1 } } });
    expectBadRequest(res, `metadata_changeset.put_fields`);
    const after = await getDataset(alice.client, ds.dataset_id);
    expect(after.metadata).toEqual({});
  });

  test("a put_fields path of 30 segments is stored and read back", async () => {
    const ds = await createDataset(alice.client, { name: "deep-ok" });
    const keys = Array.from({ length: 30 }, (_, i) => `k${i}`);
    const stored = await updated(alice.client, ds.dataset_id, { metadata_changeset: { put_fields: { [keys.join(".")]: 1 } } });
    let node = stored.metadata;
    for (const key of keys.slice(0, -1)) node = node[key];
    expect(node).toEqual({ k29: 1 });
    expect((await getDataset(alice.client, ds.dataset_id)).metadata).toEqual(stored.metadata);
  });
});
