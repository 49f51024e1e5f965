import { createDevice, createDataset, createTenant, expectBadRequest, startWithTenants, uploadFiles, type ApiClient, type ApiResponse, type TestPlatform, type TestTenant, LEGACY_TRIGGERS } from "@hangar/test-harness";

// Issue 9: every request field has a declared limit, enforced by one interceptor in every
// service (a 400 naming the field, nothing written); error messages quote at most a short prefix
// of a caller's value; a page of results always fits the gateway's response limit.

const MiB = 1 << 20;
const huge = "x".repeat(MiB);
/** The longest a message that quotes a caller's value may be: the rule's text and a 64-character prefix. */
const SHORT_MESSAGE = /^.{1,300}$/s;

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
});
afterAll(() => t?.close());

/** Asserts a 400 naming `field` whose whole message is `field: rule`. */
function expectLimit(res: ApiResponse, field: string, rule: string): void {
  expectBadRequest(res, field);
  expect(res.body.error.message).toBe(`${field}: ${rule}`);
}

/** Asserts a 4xx whose message stays short, however long the value it is about. */
function expectShortError(res: ApiResponse, status: number): void {
  expect(res.status).toBe(status);
  expect(res.body.error.message).toMatch(SHORT_MESSAGE);
}

async function datasetCount(client: ApiClient): Promise<number> {
  return (await client.post("/v1/datasets/query", {})).body.data.total_count;
}

describe("datasets", () => {
  const tags100 = Array.from({ length: 100 }, (_, i) => `${i}-`.padEnd(200, "t"));

  test.each<[string, Record<string, unknown>, string, string]>([
    ["a 1 MiB description", { description: huge }, "description", "at most 10000 characters"],
    ["a 1 MiB device_id", { device_id: huge }, "device_id", "at most 1000 characters"],
    ["a 1 MiB tag", { tags: ["ok", huge] }, "tags[1]", "at most 200 characters"],
    ["101 tags", { tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }, "tags", "at most 100 items"],
    ["1 MiB of metadata", { metadata: { blob: huge } }, "metadata", "at most 65536 bytes of JSON"],
    ["metadata 33 levels deep", { metadata: nested(33) }, "metadata", "at most 32 levels deep"],
    ["1 MiB of custom fields", { custom_fields: { blob: huge } }, "custom_fields", "at most 65536 bytes of JSON"],
  ])("create_dataset with %s is a 400 naming the field, and nothing is written", async (_case, body, field, rule) => {
    const before = await datasetCount(alice.client);
    expectLimit(await alice.client.post("/v1/datasets", { name: "over", ...body }), field, rule);
    expect(await datasetCount(alice.client)).toBe(before);
  });

  test("create_dataset accepts every field at its limit", async () => {
    const body = { name: "n".repeat(119), description: "d".repeat(10_000), device_id: "v".repeat(1000), tags: tags100, metadata: { blob: "m".repeat(65_000), deep: nested(31) } };
    const res = await alice.client.post("/v1/datasets", body);
    expect(res.status).toBe(200);
    const got = await alice.client.get(`/v1/datasets/${res.body.data.dataset_id}`);
    expect(got.body.data).toMatchObject(body);
  });

  test.each<[string, Record<string, unknown>, string, string]>([
    ["a 1 MiB description", { description: huge }, "description", "at most 10000 characters"],
    ["a 120-character name", { name: "n".repeat(120) }, "name", "at most 119 characters"],
    ["a 1 MiB tag to put", { metadata_changeset: { put_tags: [huge] } }, "metadata_changeset.put_tags[0]", "at most 200 characters"],
    ["1 MiB of metadata to put", { metadata_changeset: { put_fields: { blob: huge } } }, "metadata_changeset.put_fields", "at most 65536 bytes of JSON"],
  ])("update_dataset with %s is a 400 naming the field, and nothing changes", async (_case, body, field, rule) => {
    const id = await createDataset(alice.client, "before");
    const before = (await alice.client.get(`/v1/datasets/${id}`)).body.data;
    expectLimit(await alice.client.put(`/v1/datasets/${id}`, body), field, rule);
    expect((await alice.client.get(`/v1/datasets/${id}`)).body.data).toEqual(before);
  });

  test("update_dataset accepts a description and put_fields at their limits", async () => {
    const id = await createDataset(alice.client, "at-limit");
    const res = await alice.client.put(`/v1/datasets/${id}`, { description: "d".repeat(10_000), metadata_changeset: { put_fields: { blob: "m".repeat(65_000) }, put_tags: tags100 } });
    expect(res.status).toBe(200);
    expect(res.body.data.description).toHaveLength(10_000);
    expect(res.body.data.tags).toEqual(tags100);
  });

  test("a metadata object 32 levels deep passes the gateway and the services", async () => {
    const res = await alice.client.post("/v1/datasets", { metadata: nested(32) });
    expect(res.status).toBe(200);
    expect(res.body.data.metadata).toEqual(nested(32));
  });
});

describe("files", () => {
  let datasetId: string;
  let fileId: string;

  beforeAll(async () => {
    datasetId = await createDataset(alice.client, "files");
    await uploadFiles(alice.client, datasetId, { "a.txt": "a" });
    const page = await alice.client.post(`/v1/datasets/${datasetId}/files/query`, {});
    fileId = page.body.data.items[0].file_id;
  });

  test("update_file with a 1 MiB description or tag is a 400 naming the field, and nothing changes", async () => {
    const before = (await alice.client.get(`/v1/files/${fileId}`)).body.data;
    expectLimit(await alice.client.put(`/v1/files/record/${fileId}`, { description: huge }), "description", "at most 10000 characters");
    expectLimit(await alice.client.put(`/v1/files/record/${fileId}`, { metadata_changeset: { put_tags: [huge] } }), "metadata_changeset.put_tags[0]", "at most 200 characters");
    expect((await alice.client.get(`/v1/files/${fileId}`)).body.data).toEqual(before);
  });

  test("update_file accepts a description at its limit", async () => {
    const res = await alice.client.put(`/v1/files/record/${fileId}`, { description: "d".repeat(10_000) });
    expect(res.status).toBe(200);
    expect(res.body.data.description).toHaveLength(10_000);
  });

  test("include and exclude patterns: 100 of 1,000 characters with 16 wildcards are served, more are 400", async () => {
    const query = (body: Record<string, unknown>) => alice.client.post(`/v1/datasets/${datasetId}/files/query`, body);
    const longest = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(976, "d") + "/**/" + "?*".repeat(7) + "/*.txt");
    expect(longest[0]).toHaveLength(1000);
    expect((await query({ include_patterns: longest })).status).toBe(200);
    expect((await query({ exclude_patterns: longest })).status).toBe(200);
    expectLimit(await query({ include_patterns: [huge] }), "include_patterns[0]", "at most 1000 characters");
    expectLimit(await query({ exclude_patterns: ["*.txt", "?".repeat(1001)] }), "exclude_patterns[1]", "at most 1000 characters");
    expectLimit(await query({ include_patterns: Array.from({ length: 101 }, () => "*.txt") }), "include_patterns", "at most 100 items");
    expectLimit(await query({ include_patterns: ["*".repeat(1000)] }), "include_patterns[0]", "at most 16 wildcards (*, ** or ?)");
  });

  test("the file query's dataset_id and association_type are bounded", async () => {
    expectLimit(await alice.client.post(`/v1/datasets/${"d".repeat(5000)}/files/query`, {}), "dataset_id", "at most 1000 characters");
    const res = await alice.client.post(`/v1/files/association/id/${datasetId}/files/query?association_type=${"t".repeat(1000)}`, {});
    expectShortError(res, 400);
  });

  test("a manifest path of 1,024 emoji (4 KB, past PostgreSQL's index row limit) is a 400, not a 500", async () => {
    const path = "🚀".repeat(1024);
    const res = await alice.client.post("/v1/files/upload", { association: { association_id: datasetId, association_type: "dataset" }, resource_manifest: { [path]: 1 } });
    expectBadRequest(res, `resource_manifest['${"🚀".repeat(32)}...']`);
    expect(res.body.error.message).toMatch(/: keys are at most 2000 bytes of UTF-8$/);
  });

  test("upload progress with a 1 MiB manifest item is a 400; an unknown item's message quotes only a prefix", async () => {
    const { transactionId } = await uploadFiles(alice.client, datasetId, { "b.txt": "b" }, { complete: false });
    expectLimit(await alice.client.put(`/v1/files/upload/${transactionId}/progress`, { manifest_items: [huge] }), "manifest_items[0]", "at most 2048 characters");
    expectShortError(await alice.client.put(`/v1/files/upload/${transactionId}/progress`, { manifest_items: [`s3://x/${"k".repeat(2000)}`] }), 400);
  });

  test("link with a long target_file_id and export with long node_ids answer short 4xx", async () => {
    expectLimit(await alice.client.post(`/v1/files/association/id/${datasetId}/link`, { target_file_id: huge }), "target_file_id", "at most 1000 characters");
    const link = await alice.client.post(`/v1/files/association/id/${datasetId}/link`, { target_file_id: "f".repeat(1000) });
    expect(link.status).toBeGreaterThanOrEqual(400);
    expect(link.status).toBeLessThan(500);
    expect(link.body.error.message).toMatch(SHORT_MESSAGE);
    expectLimit(await alice.client.post("/v1/files/export", { node_ids: [huge] }), "node_ids[0]", "at most 1000 characters");
    expectShortError(await alice.client.post("/v1/files/export", { node_ids: ["n".repeat(1000)] }), 400);
  });
});

describe("devices", () => {
  test("create_device with a 1 MiB device_id or tag is a 400, and nothing is written", async () => {
    expectLimit(await alice.client.post("/v1/devices/create", { device_id: huge }), "device_id", "at most 256 characters");
    expectLimit(await alice.client.post("/v1/devices/create", { device_id: "dev-tags", tags: [huge] }), "tags[0]", "at most 200 characters");
    expect((await alice.client.get(`/v1/devices/id/dev-tags`)).status).toBe(404);
  });

  test("update_device with an unknown device_type_id of 1,000 characters quotes only a prefix; a 1 MiB one is a 400", async () => {
    const device = await createDevice(alice.client, { device_id: "dev-type" });
    expectLimit(await alice.client.put(`/v1/devices/id/${device.device_id}`, { device_type_id: huge }), "device_type_id", "at most 1000 characters");
    const res = await alice.client.put(`/v1/devices/id/${device.device_id}`, { device_type_id: "t".repeat(1000) });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error.message).toMatch(SHORT_MESSAGE);
  });
});

describe("compute", () => {
  test("create_action with a 1 MiB description or tag is a 400, and nothing is written", async () => {
    expectLimit(await alice.client.post("/v1/actions", { name: "big-description", description: huge }), "description", "at most 10000 characters");
    expectLimit(await alice.client.post("/v1/actions", { name: "big-tag", tags: [huge] }), "tags[0]", "at most 200 characters");
    expect((await alice.client.get("/v1/actions/big-description")).status).toBe(404);
    expect((await alice.client.get("/v1/actions/big-tag")).status).toBe(404);
  });

  test("set accessibility with a long value is a short 400", async () => {
    expect((await alice.client.post("/v1/actions", { name: "access" })).status).toBe(200);
    expectLimit(await alice.client.put("/v1/actions/access/accessibility", { accessibility: huge }), "accessibility", "at most 1000 characters");
    expectShortError(await alice.client.put("/v1/actions/access/accessibility", { accessibility: "a".repeat(1000) }), 400);
  });

  test("create_trigger: 1 MiB action_name or for_each is a 400, a long bad for_each is quoted short, and nothing is written", async () => {
    expect((await alice.client.post("/v1/actions", { name: "trigger-target" })).status).toBe(200);
    const base = { name: "limits-trigger", action_name: "trigger-target", for_each: "dataset", required_inputs: ["*.bag"] };
    expectLimit(await alice.client.post("/v1/triggers", { ...base, action_name: huge }, LEGACY_TRIGGERS), "action_name", "at most 1000 characters");
    expectLimit(await alice.client.post("/v1/triggers", { ...base, for_each: huge }, LEGACY_TRIGGERS), "for_each", "at most 1000 characters");
    expectLimit(await alice.client.post("/v1/triggers", { ...base, required_inputs: [huge] }, LEGACY_TRIGGERS), "required_inputs[0]", "at most 1000 characters");
    expectShortError(await alice.client.post("/v1/triggers", { ...base, for_each: "f".repeat(1000) }, LEGACY_TRIGGERS), 400);
    expect((await alice.client.get("/v1/triggers/limits-trigger")).status).toBe(404);
    expect((await alice.client.post("/v1/triggers", base, LEGACY_TRIGGERS)).status).toBe(200);
  });

  test("cancel-all with a long created_before is a short 400", async () => {
    expectLimit(await alice.client.post("/v1/actions/invocations/cancel/all", { created_before: huge }), "created_before", "at most 1000 characters");
    expectShortError(await alice.client.post("/v1/actions/invocations/cancel/all", { created_before: "c".repeat(1000) }), 400);
  });
});

describe("admin", () => {
  test("create_token with a 1 MiB name or description is a 400; at the limit it is created", async () => {
    expectLimit(await alice.client.post("/v1/tokens", { name: huge, expiry_days: 1 }), "name", "at most 256 characters");
    expectLimit(await alice.client.post("/v1/tokens", { name: "t", description: huge, expiry_days: 1 }), "description", "at most 10000 characters");
    const ok = await alice.client.post("/v1/tokens", { name: "n".repeat(256), description: "d".repeat(10_000), expiry_days: 1 });
    expect(ok.status).toBe(200);
  });

  test("role add and remove with long roles are short 400s", async () => {
    const path = `/v1/orgs/id/${alice.orgId}/users/id/${encodeURIComponent(alice.userId)}`;
    expectLimit(await t.admin.put(path, { add_roles: [huge] }), "add_roles[0]", "at most 1000 characters");
    expectLimit(await t.admin.put(path, { remove_roles: [huge] }), "remove_roles[0]", "at most 1000 characters");
    expectShortError(await t.admin.put(path, { add_roles: ["r".repeat(1000)] }), 400);
    expectShortError(await t.admin.put(path, { remove_roles: ["r".repeat(1000)] }), 400);
  });
});

test("a dataset query over an org full of records at their limits answers every page with 200", async () => {
  const record = (i: number) => ({
    name: `big-${i}`,
    description: "d".repeat(10_000),
    tags: Array.from({ length: 100 }, (_, j) => `${j}-`.padEnd(200, "t")),
    metadata: { blob: "m".repeat(65_000) },
  });
  const count = 48; // about 100 KB each: 4.8 MB, more than the gateway takes in one response
  for (let i = 0; i < count; i++) expect((await bob.client.post("/v1/datasets", record(i))).status).toBe(200);
  // Sorted on description or tags, a keyset token carries a key at its field's limit (13,000 and
  // 27,000 characters of token), which `after` must take back. Each page is cut to fit the
  // response and the next continues after its last dataset: every one is seen exactly once.
  for (const sort of [{}, { sort_by: "description", sort_direction: "ASC" }, { sort_by: "tags" }]) {
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: ApiResponse = await bob.client.post("/v1/datasets/query", { ...sort, ...(after ? { after } : {}) });
      expect(page.status).toBe(200);
      expect(page.body.data.total_count).toBe(count);
      expect(page.body.data.items.length).toBeLessThan(count);
      for (const item of page.body.data.items) seen.push(item.dataset_id);
      after = page.body.data.next_token;
    } while (after);
    expect(seen).toHaveLength(count);
    expect(new Set(seen).size).toBe(count);
  }
});

test("a device listing over devices with metadata at its limit answers every page with 200", async () => {
  const carol = await createTenant(t, "carol");
  const count = 70; // about 65 KB each: 4.5 MB, more than the gateway takes in one response
  for (let i = 0; i < count; i++) await createDevice(carol.client, { device_id: `big-${i}`, metadata: { blob: "m".repeat(65_000) } });
  const seen = new Set<string>();
  let token: string | null = null;
  do {
    const page: ApiResponse = await carol.client.get(`/v1/devices/org/${carol.orgId}${token ? `?page_token=${token}` : ""}`);
    expect(page.status).toBe(200);
    for (const item of page.body.data.items) seen.add(item.device_id);
    token = page.body.data.next_token;
  } while (token);
  expect(seen.size).toBe(count);
});

/** A JSON object nested `levels` deep: {a: {a: ... {}}}. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}
