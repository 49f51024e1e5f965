import {
  addMember,
  createDataset,
  expectBadRequest,
  expectError,
  startWithTenants,
  uploadFiles,
  type ApiClient,
  type ApiResponse,
  type TestPlatform,
  type TestTenant,
  LEGACY_TRIGGERS,
} from "@hangar/test-harness";

// Comments (routes.md rows 183-190) through the gateway: on datasets, files, actions, invocations
// and triggers of the caller's org, which must exist; mentions parsed from the text; only the
// author edits or deletes; listings by entity, type, author and the org's recent ones; another
// org's caller sees nothing.

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
let t: TestPlatform;
let alice: TestTenant;
let carol: TestTenant; // alice's teammate
let bob: TestTenant; // another org
let datasetId: string;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
  carol = await addMember(t, alice, "carol");
  datasetId = await createDataset(alice.client, "commented");
});
afterAll(async () => {
  await t?.close();
});

function ok(res: ApiResponse): any {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined });
  return res.body.data;
}

async function comment(client: ApiClient, entityType: string, entityId: string, text: string): Promise<any> {
  return ok(await client.post("/v1/comments", { entity_type: entityType, entity_id: entityId, comment_text: text }));
}

const ids = (page: any) => page.items.map((c: any) => c.comment_id);

test("a comment on a dataset carries every documented field, its mentions parsed from the text", async () => {
  const text = `Looks good @[Carol C](${carol.userId}), and @[Bob](someone@example.com) too; again @[Carol](${carol.userId})`;
  const created = await comment(alice.client, "dataset", datasetId, text);
  expect(created).toEqual({
    comment_id: expect.stringMatching(/^cm_/),
    org_id: alice.orgId,
    entity_type: "dataset",
    entity_id: datasetId,
    comment_text: text,
    mentions: [carol.userId, "someone@example.com"],
    created: ISO,
    created_by: alice.userId,
    modified: created.created,
    modified_by: alice.userId,
  });
  expect(ok(await carol.client.get(`/v1/comments/${created.comment_id}`))).toEqual(created);
  expect((await comment(alice.client, "dataset", datasetId, "no mentions here")).mentions).toEqual([]);
});

test("comments go on files, actions, invocations and triggers of the org", async () => {
  await uploadFiles(alice.client, datasetId, { "log.txt": "x" });
  const file = ok(await alice.client.get(`/v1/files/record/path/log.txt/association/${datasetId}`));
  const action = ok(await alice.client.post("/v1/actions", { name: "commented-action", uri: "registry.example.com/a:1" }));
  const invocation = ok(await alice.client.post(`/v1/actions/${action.name}/invoke`, { data_source_id: datasetId, data_source_type: "Dataset", input_data: ["*"], invocation_source: "Manual" }));
  const trigger = ok(await alice.client.post("/v1/triggers", { name: "commented-trigger", action_name: action.name, required_inputs: ["*.txt"], for_each: "dataset" }, LEGACY_TRIGGERS));
  const targets: [string, string][] = [
    ["file", file.file_id],
    ["action", action.name],
    ["invocation", invocation.invocation_id],
    ["trigger", trigger.name],
  ];
  for (const [type, id] of targets) {
    const created = await comment(alice.client, type, id, `on the ${type}`);
    expect(created).toMatchObject({ entity_type: type, entity_id: id });
    expect(ids(ok(await carol.client.get(`/v1/comments/${type}/${encodeURIComponent(id)}`)))).toEqual([created.comment_id]);
  }
});

test("an entity that does not exist in the caller's org is a 404, and nothing is written", async () => {
  const bobsDataset = await createDataset(bob.client, "bobs");
  for (const [type, id] of [
    ["dataset", "ds_missing"],
    ["dataset", bobsDataset],
    ["file", "fl_missing"],
    ["file", datasetId],
    ["action", "no-such-action"],
    ["invocation", "iv_missing"],
    ["trigger", "no-such-trigger"],
  ] as const) {
    const res = await alice.client.post("/v1/comments", { entity_type: type, entity_id: id, comment_text: "hello" });
    expectError(res, 404, `${type} '${id}' not found`);
  }
  expect(ok(await bob.client.get("/v1/comments/recent")).items).toEqual([]);
});

test("bad input is a 400 naming the field; an unknown collection is a 404", async () => {
  const post = (body: Record<string, unknown>) => alice.client.post("/v1/comments", body);
  const before = ok(await alice.client.get("/v1/comments/recent")).total_count;
  expectBadRequest(await post({ entity_id: datasetId, comment_text: "x" }), "entity_type");
  expectBadRequest(await post({ entity_type: "Dataset", entity_id: datasetId, comment_text: "x" }), "entity_type");
  expectBadRequest(await post({ entity_type: "topic", entity_id: "tp_1", comment_text: "x" }), "entity_type");
  expectError(await post({ entity_type: "collection", entity_id: "cl_1", comment_text: "x" }), 404, "collection 'cl_1' not found");
  expectBadRequest(await post({ entity_type: "dataset", comment_text: "x" }), "entity_id");
  expectBadRequest(await post({ entity_type: "dataset", entity_id: datasetId }), "comment_text");
  expectBadRequest(await post({ entity_type: "dataset", entity_id: datasetId, comment_text: "  \n " }), "comment_text");
  expectBadRequest(await post({ entity_type: "dataset", entity_id: datasetId, comment_text: "x".repeat(10_001) }), "comment_text");
  expectBadRequest(await post({ entity_type: "dataset", entity_id: datasetId, comment_text: 7 }), "comment_text");
  const many = Array.from({ length: 101 }, (_, i) => `@[U${i}](user-${i})`).join(" ");
  expectBadRequest(await post({ entity_type: "dataset", entity_id: datasetId, comment_text: many }), "comment_text");
  expectBadRequest(await alice.client.get("/v1/comments/type/datasets"), "entity_type");
  expectBadRequest(await alice.client.get(`/v1/comments/Dataset/${datasetId}`), "entity_type");
  expectError(await alice.client.get(`/v1/comments/collection/cl_1`), 404, "collection 'cl_1' not found");
  expectBadRequest(await alice.client.put(`/v1/comments/cm_x`, {}), "comment_text");
  expect(ok(await alice.client.get("/v1/comments/recent")).total_count).toBe(before);
});

test("only the author edits or deletes a comment; an edit replaces the text and the mentions", async () => {
  const created = await comment(alice.client, "dataset", datasetId, `first @[Carol](${carol.userId})`);
  const path = `/v1/comments/${created.comment_id}`;
  expectError(await carol.client.put(path, { comment_text: "hijacked" }), 401, "only the author of a comment may edit it");
  expectError(await carol.client.delete(path), 401, "only the author of a comment may delete it");
  expect(ok(await alice.client.get(path)).comment_text).toBe(created.comment_text);

  const updated = ok(await alice.client.put(path, { comment_text: "second @[X](x@example.com)" }));
  expect(updated).toEqual({ ...created, comment_text: "second @[X](x@example.com)", mentions: ["x@example.com"], modified: ISO, modified_by: alice.userId });
  expect(Date.parse(updated.modified)).toBeGreaterThanOrEqual(Date.parse(created.modified));
  expect(ok(await carol.client.get(path))).toEqual(updated);

  expect(ok(await alice.client.delete(path))).toBeNull();
  expectError(await alice.client.get(path), 404, `comment '${created.comment_id}' not found`);
  expectError(await alice.client.delete(path), 404, `comment '${created.comment_id}' not found`);
  expectError(await alice.client.put(path, { comment_text: "again" }), 404, `comment '${created.comment_id}' not found`);
});

test("listings: by entity, type and author oldest first, the org's recent newest first, page by page", async () => {
  const own = await createDataset(alice.client, "listed");
  const made: string[] = [];
  for (const [client, text] of [
    [alice.client, "one"],
    [carol.client, "two"],
    [alice.client, "three"],
  ] as const) {
    made.push((await comment(client, "dataset", own, text)).comment_id);
  }
  expect(ids(ok(await alice.client.get(`/v1/comments/dataset/${own}`)))).toEqual(made);

  const first = ok(await alice.client.get(`/v1/comments/dataset/${own}?page_size=2`));
  expect({ ids: ids(first), total: first.total_count, more: typeof first.next_token }).toEqual({ ids: made.slice(0, 2), total: 3, more: "string" });
  const second = ok(await alice.client.get(`/v1/comments/dataset/${own}?page_size=2&page_token=${encodeURIComponent(first.next_token)}`));
  expect({ ids: ids(second), next: second.next_token }).toEqual({ ids: made.slice(2), next: null });

  const byType = ids(ok(await alice.client.get("/v1/comments/type/dataset")));
  expect(byType.filter((id: string) => made.includes(id))).toEqual(made);
  expect(ids(ok(await alice.client.get("/v1/comments/type/action")))).not.toEqual(expect.arrayContaining([made[0]]));
  const byCarol = ok(await alice.client.get(`/v1/comments/user/${encodeURIComponent(carol.userId)}`));
  expect(byCarol.items.every((c: any) => c.created_by === carol.userId)).toBe(true);
  expect(ids(byCarol)).toContain(made[1]);
  const recent = ids(ok(await alice.client.get("/v1/comments/recent")));
  expect(recent.slice(0, 3)).toEqual([...made].reverse());
  expectBadRequest(await alice.client.get(`/v1/comments/user/${encodeURIComponent(carol.userId)}?page_token=${encodeURIComponent(first.next_token)}`), "page_token");
});

test("a deleted dataset's or file's comments leave every listing with it", async () => {
  const doomed = await createDataset(alice.client, "doomed");
  await uploadFiles(alice.client, datasetId, { "doomed.bag": "x" });
  const file = ok(await alice.client.get(`/v1/files/record/path/doomed.bag/association/${datasetId}`));
  const onDataset = (await comment(carol.client, "dataset", doomed, "on the dataset")).comment_id;
  const onFile = (await comment(carol.client, "file", file.file_id, "on the file")).comment_id;
  const listings = ["/v1/comments/type/dataset", "/v1/comments/type/file", `/v1/comments/user/${encodeURIComponent(carol.userId)}`, "/v1/comments/recent"];
  const listed = async () => (await Promise.all(listings.map(async (path) => ids(ok(await alice.client.get(path)))))).flat();
  expect(await listed()).toEqual(expect.arrayContaining([onDataset, onFile]));

  ok(await alice.client.delete(`/v1/datasets/${doomed}`));
  ok(await alice.client.delete(`/v1/files/${file.file_id}`));
  const after = await listed();
  expect(after).not.toContain(onDataset);
  expect(after).not.toContain(onFile);
  expectError(await alice.client.get(`/v1/comments/${onDataset}`), 404, `comment '${onDataset}' not found`);
  const counted = ok(await alice.client.get(`/v1/comments/user/${encodeURIComponent(carol.userId)}`));
  expect(counted.total_count).toBe(counted.items.length);
});

test("another org's caller sees nothing of the org's comments", async () => {
  const created = await comment(alice.client, "dataset", datasetId, "private");
  const path = `/v1/comments/${created.comment_id}`;
  const notFound = `comment '${created.comment_id}' not found`;
  expectError(await bob.client.get(path), 404, notFound);
  expectError(await bob.client.put(path, { comment_text: "x" }), 404, notFound);
  expectError(await bob.client.delete(path), 404, notFound);
  expectError(await bob.client.get(path, { "X-Service-Resource-Owner-Id": alice.orgId }), 404, notFound);
  expectError(await bob.client.get(`/v1/comments/dataset/${datasetId}`), 404, `dataset '${datasetId}' not found`);
  const asOwner = { "X-Service-Resource-Owner-Id": alice.orgId };
  expectError(await bob.client.get(`/v1/comments/dataset/${datasetId}`, asOwner), 404, `dataset '${datasetId}' not found`);
  for (const list of ["/v1/comments/type/dataset", `/v1/comments/user/${encodeURIComponent(alice.userId)}`, "/v1/comments/recent"]) {
    expect(ok(await bob.client.get(list))).toMatchObject({ items: [], next_token: null, total_count: 0 });
  }
  expect(ok(await alice.client.get(path)).comment_text).toBe("private");
});
