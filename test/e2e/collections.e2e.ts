import { createDataset, createTenant, expectBadRequest, expectError, startWithTenants, uploadFiles, type ApiClient, type ApiResponse, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// Collections (routes.md rows 175-182): versions, content modes, change records, permissions,
// queries, limits, org isolation, deleted members and comments on collections.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let datasetA: string;
let datasetB: string;
let fileId: string;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
  datasetA = await createDataset(alice.client, "col-a");
  datasetB = await createDataset(alice.client, "col-b");
  await uploadFiles(alice.client, datasetA, { "a.bag": "bag" });
  const files = ok(await alice.client.post(`/v1/datasets/${datasetA}/files/query`, {}));
  fileId = files.items[0].file_id;
}, 120_000);
afterAll(() => t?.close());

function ok(res: ApiResponse): any {
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

const ref = (resource_type: string, resource_id: string) => ({ resource_type, resource_id });
/** A reference as reads show it: `resource_version` is null when none was given. */
const shown = (resource_type: string, resource_id: string) => ({ resource_type, resource_id, resource_version: null });

async function create(client: ApiClient, body: Record<string, unknown>, headers?: Record<string, string>): Promise<any> {
  return ok(await client.post("/v1/collections/create", body, headers));
}

const get = (client: ApiClient, id: string, query = "") => client.get(`/v1/collections/id/${id}${query}`);

test("create returns version 0 with its members; get shows them in each content mode", async () => {
  const created = await create(alice.client, { name: "runs", description: "d", resources: [ref("dataset", datasetA), ref("file", fileId)], tags: ["x", "x", "y"] });
  expect(created).toMatchObject({ name: "runs", description: "d", resource_type: "file", resource_count: 2, tags: ["x", "y"], version: 0, org_id: alice.orgId, created_by: alice.userId, updated_by: alice.userId });
  expect(created.collection_id).toMatch(/^cl_/);
  expect(created.resources.dataset).toEqual([expect.objectContaining({ dataset_id: datasetA })]);
  const id = created.collection_id;

  const summary = ok(await get(alice.client, id, "?content_mode=summary_only"));
  expect(summary).toMatchObject({ resources: {}, missing: {}, resource_count: 2 });

  const refs = ok(await get(alice.client, id, "?content_mode=references"));
  expect(refs.resources).toEqual({ dataset: [{ ...ref("dataset", datasetA), resource_version: null }], file: [{ ...ref("file", fileId), resource_version: null }] });

  const full = ok(await get(alice.client, id));
  expect(full.resources.dataset).toEqual([expect.objectContaining({ dataset_id: datasetA, name: "col-a", org_id: alice.orgId })]);
  expect(full.resources.file).toEqual([expect.objectContaining({ file_id: fileId, relative_path: "a.bag", association_id: datasetA })]);
  expect(full.missing).toEqual({});
});

test("each update makes a version with a change record; get by version shows the old state", async () => {
  const { collection_id: id } = await create(alice.client, { name: "v", resources: [ref("dataset", datasetA)], tags: ["a"] });
  const v1 = ok(await alice.client.put(`/v1/collections/id/${id}`, { add_resources: [ref("dataset", datasetB)], add_tags: ["b"], name: "v-renamed" }));
  expect(v1).toMatchObject({ version: 1, name: "v-renamed", tags: ["a", "b"], resource_count: 2 });
  const v2 = ok(await alice.client.put(`/v1/collections/id/${id}`, { remove_resources: [ref("dataset", datasetA)], remove_tags: ["a"], description: "now" }));
  expect(v2).toMatchObject({ version: 2, description: "now", tags: ["b"], resource_count: 1 });
  expect(v2.resources.dataset.map((d: { dataset_id: string }) => d.dataset_id)).toEqual([datasetB]);

  // Nothing changes: adding a member already there and removing one that is not make no version.
  const same = ok(await alice.client.put(`/v1/collections/id/${id}`, { add_resources: [ref("dataset", datasetB)], remove_resources: [ref("dataset", datasetA)], add_tags: ["b"] }));
  expect(same.version).toBe(2);

  const at0 = ok(await get(alice.client, id, "?content_mode=references&version=0"));
  expect(at0).toMatchObject({ version: 0, name: "v", tags: ["a"], resource_count: 1, resources: { dataset: [expect.objectContaining(ref("dataset", datasetA))] } });
  const at1 = ok(await get(alice.client, id, "?content_mode=references&version=1"));
  expect(at1.resources.dataset.map((r: { resource_id: string }) => r.resource_id)).toEqual([datasetA, datasetB]);
  expectError(await get(alice.client, id, "?version=3"), 404, `collection version '${id}@3' not found`);

  const changes = ok(await alice.client.get(`/v1/collections/id/${id}/changes`));
  expect(changes.next_token).toBeNull();
  expect(changes.items).toEqual([
    expect.objectContaining({
      collection_id: id,
      from_version: 0,
      to_version: 1,
      applied_by: alice.userId,
      change_set: { added_resources: [shown("dataset", datasetB)], removed_resources: [], added_tags: ["b"], removed_tags: [], field_changes: { name: "v-renamed" } },
    }),
    expect.objectContaining({
      from_version: 1,
      to_version: 2,
      change_set: { added_resources: [], removed_resources: [shown("dataset", datasetA)], added_tags: [], removed_tags: ["a"], field_changes: { description: "now" } },
    }),
  ]);
  const versions = async (q: string) => ok(await alice.client.get(`/v1/collections/id/${id}/changes${q}`)).items.map((c: { to_version: number }) => c.to_version);
  expect(await versions("?from_version=1")).toEqual([2]);
  expect(await versions("?to_version=1")).toEqual([1]);
  expect(await versions("?from_version=0&to_version=0")).toEqual([]);
});

test("custom-field changesets are applied and recorded", async () => {
  const { collection_id: id } = await create(alice.client, { name: "cf", custom_fields: { robot: "r1", keep: 1 } });
  const updated = ok(await alice.client.put(`/v1/collections/id/${id}`, { custom_fields_changeset: { set_fields: { robot: "r2" }, clear_fields: ["keep"] } }));
  expect(updated.custom_fields).toEqual({ robot: "r2", keep: null });
  const [change] = ok(await alice.client.get(`/v1/collections/id/${id}/changes`)).items;
  expect(change.change_set.field_changes).toEqual({ "custom_fields.robot": "r2", "custom_fields.keep": null });
});

test("a deleted member still counts and shows as missing in full mode, as a reference in references mode", async () => {
  const doomed = await createDataset(alice.client, "doomed");
  const { collection_id: id } = await create(alice.client, { resources: [ref("dataset", doomed), ref("dataset", datasetA)] });
  ok(await alice.client.delete(`/v1/datasets/${doomed}`));
  const full = ok(await get(alice.client, id));
  expect(full.resource_count).toBe(2);
  expect(full.resources.dataset.map((d: { dataset_id: string }) => d.dataset_id)).toEqual([datasetA]);
  expect(full.missing).toEqual({ dataset: [{ ...ref("dataset", doomed), resource_version: null }] });
  const refs = ok(await get(alice.client, id, "?content_mode=references"));
  expect(refs.resources.dataset.map((r: { resource_id: string }) => r.resource_id)).toEqual([doomed, datasetA]);
  // It can still be removed.
  expect(ok(await alice.client.put(`/v1/collections/id/${id}`, { remove_resources: [ref("dataset", doomed)] })).resource_count).toBe(1);
});

test("delete removes the collection and its history", async () => {
  const { collection_id: id } = await create(alice.client, { name: "gone" });
  expect(ok(await alice.client.delete(`/v1/collections/id/${id}`))).toBeNull();
  expectError(await get(alice.client, id), 404, `collection '${id}' not found`);
  expectError(await alice.client.get(`/v1/collections/id/${id}/changes`), 404, `collection '${id}' not found`);
  expectError(await alice.client.delete(`/v1/collections/id/${id}`), 404, `collection '${id}' not found`);
});

test("permissions use the dataset relation model", async () => {
  const { collection_id: id } = await create(alice.client, { name: "shared" });
  const obj = `collection:${id}`;
  const initial = ok(await alice.client.get(`/v1/collections/${id}/access`));
  expect(initial).toEqual({
    relations: [
      { user: alice.userId, relation: "owner", obj },
      { user: `org:${alice.orgId}#member`, relation: "editor", obj },
    ],
    group_permissions: { owner: ["read", "write", "delete", "share"], editor: ["read", "write"], viewer: ["read"] },
  });
  const edited = ok(await alice.client.put(`/v1/collections/${id}/access`, { add: [{ user: "u_v", relation: "viewer", obj }, { user: "u_v", relation: "viewer", obj: "" }] }));
  expect(edited.relations.slice(2)).toEqual([{ user: "u_v", relation: "viewer", obj }]);
  expectBadRequest(await alice.client.put(`/v1/collections/${id}/access`, { add: [{ user: "u_x", relation: "admin", obj }] }), "add[0].relation");
  expectBadRequest(await alice.client.put(`/v1/collections/${id}/access`, { add: [{ user: "u_x", relation: "viewer", obj: "dataset:ds_1" }] }), "add[0].obj");
  const removed = ok(await alice.client.put(`/v1/collections/${id}/access`, { remove: [{ user: "u_v", relation: "viewer", obj }] }));
  expect(removed.relations).toHaveLength(2);
});

test("query_collections filters and pages with keyset tokens in the org", async () => {
  for (const name of ["q-1", "q-2", "q-3"]) await create(alice.client, { name, tags: ["queried"], resources: [ref("dataset", datasetA)] });
  const condition = { field: "tags", comparator: "Contains", value: "queried" };
  const first = ok(await alice.client.post("/v1/collections/search", { condition, limit: 2, sort_by: "name", sort_direction: "ASC" }));
  expect(first.items.map((c: { name: string }) => c.name)).toEqual(["q-1", "q-2"]);
  expect(first.items[0].resources).toEqual({});
  expect(first.total_count).toBe(3);
  const second = ok(await alice.client.post("/v1/collections/search?content_mode=references", { condition, limit: 2, sort_by: "name", sort_direction: "ASC", after: first.next_token }));
  expect(second.items.map((c: { name: string }) => c.name)).toEqual(["q-3"]);
  expect(second.items[0].resources.dataset).toEqual([expect.objectContaining(ref("dataset", datasetA))]);
  expect(second.next_token).toBeNull();
  expect(ok(await bob.client.post("/v1/collections/search", { condition })).items).toEqual([]);
  expectBadRequest(await alice.client.post("/v1/collections/search", { condition: { field: "no_such", comparator: "Equals", value: "x" } }), "condition.field");
});

test("another org sees nothing and cannot add its resources", async () => {
  const { collection_id: id } = await create(alice.client, { name: "private", resources: [ref("dataset", datasetA)] });
  const missing = `collection '${id}' not found`;
  expectError(await get(bob.client, id), 404, missing);
  expectError(await bob.client.put(`/v1/collections/id/${id}`, { name: "stolen" }), 404, missing);
  expectError(await bob.client.delete(`/v1/collections/id/${id}`), 404, missing);
  expectError(await bob.client.get(`/v1/collections/id/${id}/changes`), 404, missing);
  expectError(await bob.client.get(`/v1/collections/${id}/access`), 404, missing);
  expectError(await bob.client.put(`/v1/collections/${id}/access`, { add: [] }), 404, missing);
  // Bob cannot put Alice's dataset into his collection.
  expectError(await bob.client.post("/v1/collections/create", { resources: [ref("dataset", datasetA)] }), 404, `resources: dataset '${datasetA}' not found`);
  expect(ok(await get(alice.client, id)).name).toBe("private");
});

test("bad input is a 4xx naming the field, and nothing is written", async () => {
  const { collection_id: id } = await create(alice.client, { name: "limits" });
  const post = (body: Record<string, unknown>) => alice.client.post("/v1/collections/create", body);
  const put = (body: Record<string, unknown>) => alice.client.put(`/v1/collections/id/${id}`, body);
  const count = async () => ok(await alice.client.post("/v1/collections/search", {})).total_count;
  const before = await count();
  expectBadRequest(await post({ name: "n".repeat(121) }), "name");
  expectBadRequest(await post({ description: "d".repeat(10_001) }), "description");
  expectBadRequest(await post({ tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }), "tags");
  expectBadRequest(await post({ tags: ["t".repeat(201)] }), "tags[0]");
  expectBadRequest(await post({ tags: [""] }), "tags[0]");
  expectBadRequest(await post({ resource_type: "topic" }), "resource_type");
  expectBadRequest(await post({ resources: [ref("topic", "tp_1")] }), "resources[0].resource_type");
  expectBadRequest(await post({ resources: [ref("dataset", "")] }), "resources[0].resource_id");
  expectBadRequest(await post({ resources: Array.from({ length: 1001 }, (_, i) => ref("dataset", `ds_${i}`)) }), "resources");
  expectError(await post({ resources: [ref("dataset", "ds_nope")] }), 404, "resources: dataset 'ds_nope' not found");
  expect(await count()).toBe(before);

  expectBadRequest(await put({ name: 7 }), "name");
  expectBadRequest(await put({ add_resources: [ref("session", "")] }), "add_resources[0].resource_id");
  expectBadRequest(await put({ remove_resources: [ref("Dataset", "ds_1")] }), "remove_resources[0].resource_type");
  expectBadRequest(await put({ add_tags: [""] }), "add_tags[0]");
  expectError(await put({ add_resources: [ref("file", "fl_nope")] }), 404, "add_resources: file 'fl_nope' not found");
  expectBadRequest(await get(alice.client, id, "?content_mode=everything"), "content_mode");
  expectBadRequest(await get(alice.client, id, "?version=-1"), "version");
  expectBadRequest(await alice.client.get(`/v1/collections/id/${id}/changes?page_token=zz`), "page_token");
  expect(ok(await get(alice.client, id)).version).toBe(0);
});

test("comments on a collection work; another org's collection is a 404", async () => {
  const { collection_id: id } = await create(alice.client, { name: "discussed" });
  const comment = ok(await alice.client.post("/v1/comments", { entity_type: "collection", entity_id: id, comment_text: "look" }));
  expect(comment).toMatchObject({ entity_type: "collection", entity_id: id });
  expect(ok(await alice.client.get(`/v1/comments/collection/${id}`)).items.map((c: { comment_id: string }) => c.comment_id)).toEqual([comment.comment_id]);
  expectError(await bob.client.post("/v1/comments", { entity_type: "collection", entity_id: id, comment_text: "x" }), 404, `collection '${id}' not found`);
  expectError(await bob.client.get(`/v1/comments/${comment.comment_id}`), 404, `comment '${comment.comment_id}' not found`);
});

test("a caller in two orgs naming none reaches a collection by id in the org that holds it", async () => {
  const carol = await createTenant(t, "collections-carol");
  const second = ok(await carol.client.post("/v1/orgs", { name: "collections-second" })).org_id;
  const { collection_id: id } = await create(carol.client, { name: "in-second" }, { "X-Service-Org-Id": second });
  expect(ok(await get(carol.client, id))).toMatchObject({ org_id: second, name: "in-second" });
  expect(ok(await carol.client.put(`/v1/collections/id/${id}`, { add_tags: ["found"] })).tags).toEqual(["found"]);
  // A named org still limits the lookup.
  expectError(await carol.client.get(`/v1/collections/id/${id}`, { "X-Service-Org-Id": carol.orgId }), 404, `collection '${id}' not found`);
});
