import { Client } from "pg";
import { relayBatch, TOPICS } from "@hangar/shared";
import {
  addMember,
  createDataset,
  expectBadRequest,
  expectError,
  startWithTenants,
  uploadFiles,
  waitFor,
  type ApiClient,
  type ApiResponse,
  type TestPlatform,
  type TestTenant,
  LEGACY_TRIGGERS,
} from "@hangar/test-harness";

// Comments (routes.md rows 183-190) through the gateway: on datasets, files, actions, invocations
// and triggers of the caller's org, which must exist; mentions parsed from the text; only the
// author edits or deletes; listings by entity, type, author and the org's recent ones; another
// org's caller sees nothing. A deleted action's, invocation's or trigger's comments leave with it
// through the compute service's deletion event (in-process delivery, as the embedded default runs).

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
let t: TestPlatform;
let alice: TestTenant;
let carol: TestTenant; // alice's teammate
let bob: TestTenant; // another org
let datasetId: string;
let db: Client;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
  carol = await addMember(t, alice, "carol");
  datasetId = await createDataset(alice.client, "commented");
  db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
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

/** An action, an invocation of it (ended, so deletable) and a trigger on it, in the client's org. */
async function computeEntitiesOf(client: ApiClient, name: string): Promise<{ action: string; invocation: string; trigger: string }> {
  const action = ok(await client.post("/v1/actions", { name, uri: "registry.example.com/a:1" })).name;
  const dataset = await createDataset(client, `${name}-source`);
  const invoked = { data_source_id: dataset, data_source_type: "Dataset", input_data: ["*"], invocation_source: "Manual" };
  const invocation = ok(await client.post(`/v1/actions/${action}/invoke`, invoked)).invocation_id;
  ok(await client.post(`/v1/actions/invocations/${invocation}/cancel`));
  const trigger = ok(await client.post("/v1/triggers", { name: `${name}-trigger`, action_name: action, required_inputs: ["*.txt"], for_each: "dataset" }, LEGACY_TRIGGERS)).name;
  return { action, invocation, trigger };
}

async function deleteComputeEntities(client: ApiClient, { action, invocation, trigger }: { action: string; invocation: string; trigger: string }): Promise<void> {
  ok(await client.delete(`/v1/triggers/${trigger}`));
  ok(await client.delete(`/v1/actions/invocations/${invocation}`));
  ok(await client.delete(`/v1/actions/${action}`));
}

const COMPUTE_LISTINGS = ["/v1/comments/type/action", "/v1/comments/type/invocation", "/v1/comments/type/trigger", "/v1/comments/recent"];

/** Every comment id the client's listings by compute entity type, by `author` and recent hold. */
async function listedOnCompute(client: ApiClient, author: string): Promise<string[]> {
  const listings = [...COMPUTE_LISTINGS, `/v1/comments/user/${encodeURIComponent(author)}`];
  return (await Promise.all(listings.map(async (path) => ids(ok(await client.get(path)))))).flat();
}

const processedDeletions = async () => Number((await db.query("select count(*) from data.processed_events where consumer = 'data.compute-deletions'")).rows[0].count);

test("a deleted action's, invocation's or trigger's comments leave every listing and read with it; another org's deletions touch none", async () => {
  const doomed = await computeEntitiesOf(alice.client, "doomed-action");
  const onEach = await Promise.all(
    (["action", "invocation", "trigger"] as const).map(async (type) => (await comment(carol.client, type, doomed[type], `on the ${type}`)).comment_id),
  );
  // Bob's org has entities of the same names; deleting his takes nothing of alice's org.
  const bobs = await computeEntitiesOf(bob.client, "doomed-action");
  const onBobs = (await comment(bob.client, "action", bobs.action, "bob's")).comment_id;
  expect((await bob.client.delete(`/v1/actions/${doomed.action}`, undefined, { "X-Service-Resource-Owner-Id": alice.orgId })).status).toBe(404);
  expect(await listedOnCompute(alice.client, carol.userId)).toEqual(expect.arrayContaining(onEach));

  await deleteComputeEntities(bob.client, bobs);
  await waitFor("bob's comment to leave", async () => (ids(ok(await bob.client.get("/v1/comments/recent"))).includes(onBobs) ? undefined : true));
  expect(await listedOnCompute(alice.client, carol.userId)).toEqual(expect.arrayContaining(onEach));

  await deleteComputeEntities(alice.client, doomed);
  await waitFor("the comments to leave every listing", async () => {
    const listed = await listedOnCompute(alice.client, carol.userId);
    return onEach.some((id) => listed.includes(id)) ? undefined : true;
  });
  for (const id of onEach) expectError(await alice.client.get(`/v1/comments/${id}`), 404, `comment '${id}' not found`);
  expectError(await alice.client.get(`/v1/comments/action/${doomed.action}`), 404, `action '${doomed.action}' not found`);
  const counted = ok(await alice.client.get(`/v1/comments/user/${encodeURIComponent(carol.userId)}`));
  expect(counted.total_count).toBe(counted.items.length);
  // An action of the same name, made again, starts without the old one's comments.
  ok(await alice.client.post("/v1/actions", { name: doomed.action, uri: "registry.example.com/a:2" }));
  expect(ok(await alice.client.get(`/v1/comments/action/${doomed.action}`))).toMatchObject({ items: [], total_count: 0 });
});

test("a redelivered deletion event deletes nothing twice, even after the consumer lost its records", async () => {
  const gone = await computeEntitiesOf(alice.client, "redelivered");
  const onGone = (await comment(alice.client, "action", gone.action, "on the first one")).comment_id;
  await deleteComputeEntities(alice.client, gone);
  await waitFor("the deletions to be handled", async () => (ids(ok(await alice.client.get("/v1/comments/type/action"))).includes(onGone) ? undefined : true));
  // An action of the same name again, commented after the first one's deletion.
  ok(await alice.client.post("/v1/actions", { name: gone.action, uri: "registry.example.com/a:2" }));
  const onNew = (await comment(alice.client, "action", gone.action, "on the second one")).comment_id;
  const handled = await processedDeletions();
  // The compute service publishes every deletion event again (same event ids), as after a relay crash.
  const redeliver = async () => {
    await db.query("update compute.outbox set published = null where topic = $1", [TOPICS.computeEntityDeleted]);
    await waitFor("the redelivery", async () => {
      await relayBatch({ orm: t.platform.services.compute.orm, transport: t.transport });
      return (await db.query("select 1 from compute.outbox where published is null")).rowCount === 0 ? true : undefined;
    });
  };
  await redeliver();
  expect(await processedDeletions()).toBe(handled);
  // Again without the processed-event records: the events apply again and still take only what their deletions did.
  await db.query("delete from data.processed_events where consumer = 'data.compute-deletions'");
  await redeliver();
  expect(await processedDeletions()).toBe(handled);
  expect(ids(ok(await alice.client.get(`/v1/comments/action/${gone.action}`)))).toEqual([onNew]);
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
