import {
  addMember,
  apiClient,
  authzRoutes,
  createDataset,
  createDevice,
  createDeviceType,
  fillTemplate,
  fixtureKey,
  startWithTenants,
  uploadFiles,
  waitFor,
  type ApiClient,
  type ApiResponse,
  type AuthzRoute,
  type TestPlatform,
  type TestTenant,
  LEGACY_TRIGGERS,
} from "@hangar/test-harness";

// The authorization suite (issue 9), generated from the gateway's route table: for every operation
// with an id in its path, org A's resource is addressed by org B's caller, with no org header, with
// X-Service-Org-Id naming A and naming B, and with X-Service-Resource-Owner-Id naming A. Each call
// must be refused (401, 403 or 404) and A's resource read back unchanged. A route whose path
// variable has no fixture below fails the suite, so a new route must get one. Then every
// owner/admin-only operation is refused to a member holding only the `user` role, and an id of org A
// named in the body of B's own call reads as an id that does not exist.

const REFUSED = [401, 403, 404];
const routes = authzRoutes().filter((r) => r.variables.length > 0);

let t: TestPlatform;
let a: TestTenant;
let b: TestTenant;
/** Org A's resources by fixture key: the path value, and how A reads the resource back. */
const fixtures = new Map<string, { value: string; read: () => Promise<unknown> }>();

beforeAll(async () => {
  [t, a, b] = await startWithTenants(["authz-a", "authz-b"]);
  await createFixtures();
}, 120_000);
afterAll(() => t?.close());

/**
 * What A sees of a resource. The read must succeed: a resource that another caller deleted would
 * otherwise read the same (404) before and after, and hide the change.
 */
async function seen(res: Promise<ApiResponse>): Promise<unknown> {
  return ok(await res, "reading org A's resource back");
}

function ok(res: ApiResponse, what: string): any {
  if (res.status !== 200) throw new Error(`${what} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function createFixtures(): Promise<void> {
  const c = a.client;
  const datasetId = await createDataset(c, "authz-dataset");
  await uploadFiles(c, datasetId, { "dir/a.bag": "bag" });
  const pending = await uploadFiles(c, datasetId, { "pending.bag": "p" }, { complete: false });
  const file = ok(await c.get(`/v1/files/record/path/${encodeURIComponent("dir/a.bag")}/association/${datasetId}`), "file by path");
  const exportJobId: string = ok(await c.post("/v1/files/export", { node_ids: [file.file_id] }), "export").export_job_id;
  await waitFor("the export to finish", async () => ((await c.get(`/v1/files/export/id/${exportJobId}`)).body.data?.status === "completed" ? true : undefined));
  const deviceType = await createDeviceType(c, { name: "authz-type" });
  const device = await createDevice(c, { device_id: "authz-device", device_type_id: deviceType.device_type_id });
  const action = ok(await c.post("/v1/actions", { name: "authz-action", uri: "registry.example.com/authz:1" }), "action");
  const trigger = ok(await c.post("/v1/triggers", { name: "authz-trigger", action_name: action.name, for_each: "dataset", required_inputs: ["*.never"] }, LEGACY_TRIGGERS), "trigger");
  const invocation = ok(
    await c.post(`/v1/actions/${action.name}/invoke`, { data_source_id: datasetId, data_source_type: "Dataset", input_data: ["**/*.bag"], invocation_source: "Manual" }),
    "invoke",
  );
  // A token A does not call with, so reading it back does not touch its last_used.
  const token = ok(await c.post("/v1/tokens", { name: "authz-fixture", expiry_days: 1 }), "token");
  const filesOf = () => seen(c.post(`/v1/datasets/${datasetId}/files/query`, {}));
  const membersOf = () => seen(c.get(`/v1/orgs/id/${a.orgId}/users`));
  const add = (key: string, value: string, read: () => Promise<unknown>) => fixtures.set(key, { value, read });
  add("dataset_id", datasetId, () => seen(c.get(`/v1/datasets/${datasetId}`)));
  add("association_id", datasetId, filesOf);
  add("directory_path", "dir", filesOf);
  add("url_quoted_file_path", "dir/a.bag", filesOf);
  add("upload_id", pending.transactionId, filesOf);
  add("file_id", file.file_id, () => seen(c.get(`/v1/files/record/${file.file_id}`)));
  // `download_url` is presigned afresh on every read (its signature carries the time): compare its object only.
  const exportRecord = async () => {
    const job = (await seen(c.get(`/v1/files/export/id/${exportJobId}`))) as { download_url?: string };
    return { ...job, download_url: job.download_url?.split("?")[0] };
  };
  add("export_job_id", exportJobId, exportRecord);
  add("device_type_id", deviceType.device_type_id, () => seen(c.get(`/v1/device-types/id/${deviceType.device_type_id}`)));
  add("device_id", device.device_id, async () => [await seen(c.get(`/v1/devices/id/${device.device_id}`)), await seen(c.get(`/v1/devices/id/${device.device_id}/tokens`))]);
  add("actions.name", action.name, () => seen(c.get(`/v1/actions/${action.name}`)));
  add("triggers.name", trigger.name, () => seen(c.get(`/v1/triggers/${trigger.name}`)));
  // A legacy scheduled trigger is a 0.62 trigger too: its id serves the id routes of both.
  const scheduledTrigger = ok(await c.post("/v1/triggers/scheduled", { name: "authz-scheduled", action_name: action.name, schedule: "0 3 * * *", enabled: true }), "scheduled trigger");
  const scheduledId = scheduledTrigger.trigger_id;
  add("trigger_id", scheduledId, async () => [
    await seen(c.get(`/v1/triggers/id/${scheduledId}`)),
    await seen(c.get(`/v1/triggers/scheduled/id/${scheduledId}`)),
    await seen(c.get(`/v1/triggers/id/${scheduledId}/dispatches`)),
  ]);
  // `duration` is the time since it was created: it changes by itself.
  const invocationRecord = async () => ({ ...((await seen(c.get(`/v1/actions/invocations/${invocation.invocation_id}`))) as object), duration: undefined });
  add("invocation_id", invocation.invocation_id, invocationRecord);
  add("org_id", a.orgId, async () => [await seen(c.get(`/v1/orgs/id/${a.orgId}`)), await membersOf()]);
  add("user_id", a.userId, async () => [await seen(c.get(`/v1/users/id/${encodeURIComponent(a.userId)}`)), await membersOf()]);
  add("url_encoded_user_id", a.userId, membersOf);
  add("token_id", token.context.token_id, () => seen(c.get(`/v1/tokens/id/${token.context.token_id}`)));
  // A comment on A's dataset by a teammate, mentioning A's user: A gets the notification.
  const teammate = await addMember(t, a, "authz-teammate");
  const comment = ok(await teammate.client.post("/v1/comments", { entity_type: "dataset", entity_id: datasetId, comment_text: `see @[A](${a.userId})` }), "comment");
  add("comment_id", comment.comment_id, () => seen(c.get(`/v1/comments/${comment.comment_id}`)));
  add("entity_type", "dataset", () => seen(c.get(`/v1/comments/dataset/${datasetId}`)));
  add("entity_id", datasetId, () => seen(c.get(`/v1/comments/dataset/${datasetId}`)));
  // Once its email went out, nothing changes the notification by itself.
  const notification = await waitFor("A's notification, emailed", async () => {
    const items = ok(await c.get("/v1/notifications"), "notifications").items as { notification_id: string; lifecycle_status: { email?: string } }[];
    return items.find((n) => n.lifecycle_status.email === "Send");
  });
  add("notification_id", notification.notification_id, () => seen(c.get(`/v1/notifications/${notification.notification_id}`)));
  ok(await c.put("/v1/users/config/notification_channels", { value: ["email"] }), "set A's config");
  add("key", "notification_channels", () => seen(c.get("/v1/users/config/notification_channels")));
  // --- topics ---
  const topic = ok(await c.post("/v1/topics", { association: { association_id: datasetId }, topic_name: "/authz", message_paths: [AUTHZ_PATH] }), "topic");
  ok(await c.post(`/v1/files/id/${file.file_id}/topics`, BODIES["POST /v1/files/id/{fs_node_id}/topics"]!(() => "")), "file topics");
  const topicsOf = (association: string) => seen(c.get(`/v1/topics/association/${encodeURIComponent(association)}`));
  add("topic_id", topic.topic_id, () => seen(c.get(`/v1/topics/id/${topic.topic_id}`)));
  add("encoded_association", `dataset:${datasetId}`, () => topicsOf(`dataset:${datasetId}`));
  add("url_quoted_topic_name", "/authz", () => topicsOf(`dataset:${datasetId}`));
  add("message_path_id", topic.message_paths[0].message_path_id, () => seen(c.get(`/v1/topics/message-path/id/${topic.message_paths[0].message_path_id}`)));
  add("storage_format", "mcap", () => seen(c.get(`/v1/topics/id/${topic.topic_id}/message-path/representations`)));
  add("fs_node_id", file.file_id, () => topicsOf(`file:${file.file_id}`));
  const fileTopic = ok(await c.get(`/v1/topics/association/${encodeURIComponent(`file:${file.file_id}`)}/name/${encodeURIComponent("/file-authz")}`), "file topic");
  add("schema_id", `sc_${fileTopic.schema_checksum}`, async () => [
    await seen(c.get(`/v2/topics/schema/id/sc_${fileTopic.schema_checksum}`)),
    await seen(c.get(`/v2/topics/schema/id/sc_${fileTopic.schema_checksum}/fields`)),
  ]);
  // --- sessions and events ---
  const session = ok(await c.post("/v1/sessions", { name: "authz-session", device_ids: [device.device_id] }), "session");
  ok(await c.post(`/v1/sessions/id/${session.session_id}/files`, { files: [{ file_id: file.file_id }] }), "session files");
  const sessionRecord = async () => [
    await seen(c.get(`/v1/sessions/id/${session.session_id}`)),
    await seen(c.get(`/v1/sessions/id/${session.session_id}/devices`)),
    await seen(c.get(`/v1/sessions/id/${session.session_id}/files`)),
  ];
  add("session_id", session.session_id, sessionRecord);
  const event = ok(await c.post("/v1/events/create", { name: "authz-event", start_time: 1, end_time: 2, associations: [{ association_id: datasetId, association_type: "dataset" }] }), "event");
  add("event_id", event.event_id, () => seen(c.get(`/v1/events/id/${event.event_id}`)));
  // --- ingestion rules ---
  const rule = ok(await c.post("/v1/ingestion-rules", { name: "authz-rule", include_patterns: ["*.never"], invocation: { action: { name: action.name } } }), "rule");
  add("rule_id", rule.rule_id, async () => [await seen(c.get(`/v1/ingestion-rules/id/${rule.rule_id}`)), await seen(c.get(`/v1/triggers/id/${rule.trigger_id}`))]);
  // --- collections ---
  const collection = ok(await c.post("/v1/collections/create", { name: "authz-collection", resources: [{ resource_type: "dataset", resource_id: datasetId }] }), "collection");
  const collectionPath = `/v1/collections/id/${collection.collection_id}`;
  const collectionRecord = async () => [
    await seen(c.get(`${collectionPath}?content_mode=references`)),
    await seen(c.get(`${collectionPath}/changes`)),
    await seen(c.get(`/v1/collections/${collection.collection_id}/access`)),
  ];
  add("collection_id", collection.collection_id, collectionRecord);
  // --- metrics ---
  ok(await c.post("/v1/metrics", { session_id: session.session_id, metrics: [{ name: "authz.metric", value: 1 }] }), "metric value");
  add("metrics.name", "authz.metric", async () => [await seen(c.get("/v1/metrics/definition/authz.metric")), await seen(c.get(`/v1/metrics/session/${session.session_id}`))]);
  const query = ok(
    await c.post("/v1/query/submit/structured", { query: { condition: { field: "name", comparator: "EQUALS", value: "authz" } }, target: "datasets", value_counts: { field: "name" } }),
    "query",
  );
  add("query_id", query.query_id, async () => [await seen(c.get(`/v1/query/id/${query.query_id}`)), await seen(c.get(`/v1/query/id/${query.query_id}/value-counts`))]);
}

/**
 * Operations whose path value names nothing of another org's (an entity type, an author, a
 * configuration key): B's caller is answered about B alone, which must hold nothing of A's, instead
 * of a refusal; A's resource must still read back unchanged.
 */
const CALLERS_OWN: Record<string, (data: any) => boolean> = {
  "GET /v1/comments/type/{entity_type}": (data) => data.items.length === 0,
  "GET /v1/comments/user/{user_id}": (data) => data.items.length === 0,
  // B's own value: unset, or what B's own PUT of this suite set (the order of the operations is the table's).
  "GET /v1/users/config/{key}": (data) => data.value === null || JSON.stringify(data.value) === JSON.stringify(["web_ui"]),
  "PUT /v1/users/config/{key}": (data) => data === null,
};

/** Whether B's answer refuses, or is B's own answer holding nothing of A's for an operation of CALLERS_OWN. */
function refusedOrOwn(route: AuthzRoute, res: ApiResponse): boolean {
  if (REFUSED.includes(res.status)) return true;
  const own = CALLERS_OWN[`${route.httpMethod} ${route.template}`];
  return own !== undefined && res.status === 200 && own(res.body.data);
}

// --- topics ---
const AUTHZ_PATH = { message_path: "speed", data_type: "float64", canonical_data_type: "number" };
const AUTHZ_REPRESENTATION = (f: (key: string) => string) => ({ association: { association_id: f("file_id") }, storage_format: "mcap", version: 1 });

/** The header sets org B's caller tries: none, and each way of naming an org. */
const HEADER_VARIANTS: [string, (aOrg: string, bOrg: string) => Record<string, string>][] = [
  ["no org header", () => ({})],
  ["X-Service-Org-Id naming A", (aOrg) => ({ "X-Service-Org-Id": aOrg })],
  ["X-Service-Org-Id naming B", (_aOrg, bOrg) => ({ "X-Service-Org-Id": bOrg })],
  ["X-Service-Resource-Owner-Id naming A", (aOrg) => ({ "X-Service-Resource-Owner-Id": aOrg })],
];

function call(client: ApiClient, route: AuthzRoute, path: string, headers: Record<string, string>): Promise<ApiResponse> {
  const bodyOf = BODIES[`${route.httpMethod} ${route.template}`];
  const body = route.hasBody ? JSON.stringify(bodyOf ? bodyOf((key) => fixtures.get(key)!.value) : {}) : "";
  return route.hasBody || route.httpMethod !== "GET" ? client.raw(route.httpMethod, path, body, headers) : client.get(path, headers);
}

/**
 * Bodies that pass request validation, for routes whose empty body would be a 400 before the
 * resource is looked up (a 400 leaks nothing, but the suite asks for a refusal).
 */
const BODIES: Record<string, (fixture: (key: string) => string) => unknown> = {
  // --- topics ---
  "POST /v1/topics/association/{encoded_association}/name/{url_quoted_topic_name}/message-path": () => ({ ...AUTHZ_PATH, message_path: "by-b" }),
  "POST /v1/topics/id/{topic_id}/message-path": () => ({ ...AUTHZ_PATH, message_path: "by-b" }),
  "PUT /v1/topics/association/{encoded_association}/name/{url_quoted_topic_name}/message-path": () => ({ message_path: "speed", data_type: "by-b" }),
  "PUT /v1/topics/id/{topic_id}/message-path": () => ({ message_path: "speed", data_type: "by-b" }),
  "POST /v1/topics/association/{encoded_association}/name/{url_quoted_topic_name}/message-path/representation": (f) => ({ ...AUTHZ_REPRESENTATION(f), message_path_id: f("message_path_id") }),
  "POST /v1/topics/id/{topic_id}/message-path/representation": (f) => ({ ...AUTHZ_REPRESENTATION(f), message_path_id: f("message_path_id") }),
  "POST /v1/topics/association/{encoded_association}/name/{url_quoted_topic_name}/representation": AUTHZ_REPRESENTATION,
  "POST /v1/topics/id/{topic_id}/representation": AUTHZ_REPRESENTATION,
  "POST /v1/files/id/{fs_node_id}/topics": () => ({
    topics: [{ topic_name: "/file-authz", topic_schema: { fields: [{ name: "x", data_type: "f64", canonical_data_type: "number" }] }, timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: 1, max_file_timestamp_ns: 2 }] }],
  }),
  "PUT /v1/files/id/{fs_node_id}/topics/representations": () => ({ topics: [{ topic_name: "/file-authz", representations: [] }] }),
  "PUT /v1/files/id/{fs_node_id}/representations": () => ({ topics: [{ topic_name: "/file-authz", representations: [] }] }),
  "POST /v1/files/id/{fs_node_id}/timeline-offsets": () => ({ offsets: [{ unix_epoch_offset_ns: 5 }] }),
  "POST /v1/datasets/{dataset_id}/uploads": () => ({ file_path: "authz.bag", file_size: 1 }),
  "PUT /v1/files/upload/{upload_id}/progress": () => ({ manifest_items: ["pending.bag"] }),
  "PUT /v1/datasets/{dataset_id}/directory": () => ({ name: "made-by-b" }),
  "PUT /v1/files/association/id/{association_id}/directory": () => ({ name: "made-by-b" }),
  "PUT /v1/datasets/{dataset_id}/directory/rename": () => ({ old_path: "dir", new_path: "moved-by-b" }),
  "PUT /v1/files/association/id/{association_id}/directory/rename": () => ({ old_path: "dir", new_path: "moved-by-b" }),
  "DELETE /v1/datasets/{dataset_id}/directory": () => ({ directory_paths: ["dir"] }),
  "PUT /v1/datasets/{dataset_id}/files/move": (f) => ({ operations: [{ node_id: f("file_id"), fs_type: "file", new_name: "moved-by-b.bag" }] }),
  "PUT /v1/files/{file_id}/rename": (f) => ({ association_id: f("dataset_id"), new_path: "renamed-by-b.bag" }),
  "POST /v1/files/association/id/{association_id}/link": (f) => ({ target_file_id: f("file_id") }),
  "PUT /v1/files/association/id/{association_id}/link": (f) => ({ relative_path: "linked-by-b.bag", target_file_id: f("file_id") }),
  "POST /v1/datasets/{dataset_id}/files/delete-directories": () => ({ directory_paths: ["dir"] }),
  "POST /v1/files/association/id/{association_id}/delete-directories": () => ({ directory_paths: ["dir"] }),
  "POST /v1/devices/id/{device_id}/tokens": () => ({ name: "by-b", expiry_days: 1 }),
  "POST /v1/devices/id/{device_id}/sessions": () => ({ sessions: [{ name: "by-b" }] }),
  "POST /v1/sessions/id/{session_id}/devices": (f) => ({ device_id: f("device_id") }),
  "DELETE /v1/sessions/id/{session_id}/devices": (f) => ({ device_id: f("device_id") }),
  "POST /v1/sessions/id/{session_id}/files": (f) => ({ files: [{ file_id: f("file_id") }] }),
  "DELETE /v1/sessions/id/{session_id}/files": (f) => ({ file_ids: [f("file_id")] }),
  "POST /v1/sessions/id/{session_id}/ingestion/skip": (f) => ({ file_ids: [f("file_id")] }),
  "POST /v1/sessions/id/{session_id}/unix-offset": () => ({ unix_epoch_offset_ns: 1 }),
  "POST /v2/topics/id/{topic_id}/read-plan": () => ({ start_time: 0, end_time: 10 }),
  "POST /v2/topics/id/{topic_id}/unix-offset": (f) => ({ session_id: f("session_id"), unix_epoch_offset_ns: 5 }),
  "PUT /v1/actions/{name}/accessibility": () => ({ accessibility: "action_hub" }),
  "POST /v1/actions/{name}/invoke": (f) => ({ data_source_id: f("dataset_id"), data_source_type: "Dataset", input_data: ["**/*.bag"], invocation_source: "Manual" }),
  "PUT /v1/actions/invocations/{invocation_id}/container-info": () => ({ image_digest: "sha256:0000" }),
  "PUT /v1/actions/invocations/{invocation_id}/logs": () => ({ bucket: "b", prefix: "p" }),
  "POST /v1/actions/invocations/{invocation_id}/status": () => ({ status: 5, detail: "by b" }),
  "PUT /v1/comments/{comment_id}": () => ({ comment_text: "edited by b" }),
  "PUT /v1/notifications/{notification_id}": (f) => ({ notification_id: f("notification_id"), read_status: "read" }),
  "PUT /v1/users/config/{key}": () => ({ value: ["web_ui"] }),
  "PUT /v1/datasets/{dataset_id}/summary": () => ({ summary: "written by b" }),
  // --- metrics ---
  "PUT /v1/metrics/definition/{name}": () => ({ description: "by b" }),
};

test("every operation with an id in its path has a fixture", () => {
  const missing = routes.flatMap((r) => r.variables.filter((v) => !fixtures.has(fixtureKey(r, v))).map((v) => `${r.httpMethod} ${r.template}: ${fixtureKey(r, v)}`));
  expect(missing).toEqual([]);
  console.log(`authorization suite: ${routes.length} operations with path ids, each tried by another org's caller ${HEADER_VARIANTS.length} ways`);
});

describe("another org's caller is refused, and org A's resource stays as it was", () => {
  test.each(routes.map((r) => [`${r.httpMethod} ${r.template}`, r] as const))("%s", async (_label, route) => {
    const keys = route.variables.map((v) => fixtureKey(route, v));
    if (!keys.every((k) => fixtures.has(k))) throw new Error(`no fixture for ${keys.join(", ")}`);
    const before = await Promise.all(keys.map((k) => fixtures.get(k)!.read()));
    const path = fillTemplate(route.template, (v) => fixtures.get(fixtureKey(route, v))!.value);
    const accepted: string[] = [];
    for (const [label, headers] of HEADER_VARIANTS) {
      const res = await call(b.client, route, path, headers(a.orgId, b.orgId));
      if (!refusedOrOwn(route, res)) accepted.push(`${label}: ${res.status} ${JSON.stringify(res.body?.error?.message ?? res.body)}`);
    }
    expect(accepted).toEqual([]);
    expect(await Promise.all(keys.map((k) => fixtures.get(k)!.read()))).toEqual(before);
  });
});

/** An owner/admin-only operation: its RPC (its route comes from the table), path values, body, and what it would change. */
interface GuardedOperation {
  rpc: string;
  values: (ids: OrgPeople) => Record<string, string>;
  body?: (ids: OrgPeople) => unknown;
  /** What the operation would change, read as org A's owner (the bootstrap admin). */
  read: (ids: OrgPeople) => Promise<unknown>;
}

/** Org A's people for the guarded operations: a second plain member and an admin with a client. */
interface OrgPeople {
  orgId: string;
  member: string;
  owner: string;
  admin: string;
  adminClient: ApiClient;
  deviceId: string;
}

const membersOfA = (ids: OrgPeople) => seen(t.admin.get(`/v1/orgs/id/${ids.orgId}/users`));

/** Operations only an org's owners and admins may call. */
const ADMIN_ONLY: GuardedOperation[] = [
  { rpc: "AdminService.UpdateOrgUserRoles", values: (p) => ({ org_id: p.orgId, url_encoded_user_id: p.member }), body: () => ({ add_roles: ["admin"] }), read: membersOfA },
  { rpc: "AdminService.RemoveOrgUser", values: (p) => ({ org_id: p.orgId, user_id: p.member }), read: membersOfA },
  { rpc: "AdminService.CreateUser", values: () => ({}), body: (p) => ({ user_id: "made-by-a-member@example.com", org_id: p.orgId }), read: membersOfA },
  {
    rpc: "DataService.CreateDeviceToken",
    values: (p) => ({ device_id: p.deviceId }),
    body: () => ({ name: "by-a-member", expiry_days: 1 }),
    read: (p) => seen(t.admin.get(`/v1/devices/id/${p.deviceId}/tokens`, { "X-Service-Org-Id": p.orgId })),
  },
];

/** Operations only an org's owners may call: an admin granting or taking the owner role, or removing an owner. */
const OWNER_ONLY: GuardedOperation[] = [
  { rpc: "AdminService.UpdateOrgUserRoles", values: (p) => ({ org_id: p.orgId, url_encoded_user_id: p.admin }), body: () => ({ add_roles: ["owner"] }), read: membersOfA },
  { rpc: "AdminService.UpdateOrgUserRoles", values: (p) => ({ org_id: p.orgId, url_encoded_user_id: p.owner }), body: () => ({ remove_roles: ["owner"] }), read: membersOfA },
  { rpc: "AdminService.RemoveOrgUser", values: (p) => ({ org_id: p.orgId, user_id: p.owner }), read: membersOfA },
];

describe("owner/admin-only operations", () => {
  const all = authzRoutes();
  let people: OrgPeople;

  beforeAll(async () => {
    const join = async (userId: string, roles: string[]) => {
      ok(await t.admin.post("/v1/users", { user_id: userId, org_id: a.orgId }), "create user");
      if (roles.length > 0) ok(await t.admin.put(`/v1/orgs/id/${a.orgId}/users/id/${encodeURIComponent(userId)}`, { add_roles: roles }), "grant");
    };
    await join("authz-member@example.com", []);
    await join("authz-admin@example.com", ["admin"]);
    const token = ok(await t.admin.post("/v1/tokens", { name: "admin", expiry_days: 1 }, { "X-Service-User-Id": "authz-admin@example.com" }), "token");
    people = {
      orgId: a.orgId,
      member: "authz-member@example.com",
      owner: "admin",
      admin: "authz-admin@example.com",
      adminClient: apiClient(t.url, token.secret),
      deviceId: fixtures.get("device_id")!.value,
    };
  });

  async function refused(caller: () => ApiClient, op: GuardedOperation, statuses: number[]): Promise<void> {
    const route = all.find((r) => r.rpc === op.rpc);
    if (!route) throw new Error(`${op.rpc} has no route`);
    const values = op.values(people);
    const path = fillTemplate(route.template, (v) => values[v]!);
    const before = await op.read(people);
    const res = await caller().raw(route.httpMethod, path, JSON.stringify(op.body?.(people) ?? {}));
    expect(statuses).toContain(res.status);
    expect(res.body).toEqual({ error: expect.objectContaining({ error_code: res.status }) });
    expect(await op.read(people)).toEqual(before);
  }

  test.each(ADMIN_ONLY.map((op) => [op.rpc, op] as const))("%s is refused to a member with only the user role", async (_rpc, op) => {
    await refused(() => a.client, op, [401, 403]);
  });

  test.each(OWNER_ONLY.map((op, i) => [`${op.rpc} #${i + 1}`, op] as const))("%s on the owner role is refused to an admin: 403", async (_rpc, op) => {
    await refused(() => people.adminClient, op, [403]);
  });
});

describe("another org's ids in a request body read as ids that do not exist, and nothing is written", () => {
  let bDataset: string;
  let bAction: string;
  const bFiles = async () => ok(await b.client.post(`/v1/datasets/${bDataset}/files/query`, {}), "B's files").items.length;
  const bInvocations = async () => ok(await b.client.post("/v1/actions/invocations/query", {}), "B's invocations").items.length;
  const bComments = async () => ok(await b.client.get("/v1/comments/recent"), "B's comments").total_count as number;
  const commentOn = (entityType: string) => (id: string) => b.client.post("/v1/comments", { entity_type: entityType, entity_id: id, comment_text: "by b" });

  beforeAll(async () => {
    bDataset = await createDataset(b.client, "authz-b-dataset");
    bAction = ok(await b.client.post("/v1/actions", { name: "authz-b-action", uri: "registry.example.com/b:1" }), "B's action").name;
  });

  // Each case names org A's resource (of fixture `key`) in the body of a call org B's caller makes in its own org.
  const cases: [string, string, (id: string) => Promise<ApiResponse>, () => Promise<number>][] = [
    ["link A's file into B's dataset", "file_id", (id) => b.client.post(`/v1/files/association/id/${bDataset}/link`, { target_file_id: id }), bFiles],
    ["move A's file within B's dataset", "file_id", (id) => b.client.put(`/v1/datasets/${bDataset}/files/move`, { operations: [{ node_id: id, fs_type: "file", new_name: "x.bag" }] }), bFiles],
    ["export A's file", "file_id", (id) => b.client.post("/v1/files/export", { node_ids: [id] }), bFiles],
    [
      "begin an upload into A's dataset",
      "dataset_id",
      (id) => b.client.post("/v1/files/upload", { association: { association_id: id, association_type: "dataset" }, origination: "b", resource_manifest: { "x.bag": 1 } }),
      bFiles,
    ],
    [
      "invoke B's action on A's dataset",
      "dataset_id",
      (id) => b.client.post(`/v1/actions/${bAction}/invoke`, { data_source_id: id, data_source_type: "Dataset", input_data: ["**"], invocation_source: "Manual" }),
      bInvocations,
    ],
    ["comment on A's dataset", "dataset_id", commentOn("dataset"), bComments],
    ["comment on A's file", "file_id", commentOn("file"), bComments],
    ["comment on A's invocation", "invocation_id", commentOn("invocation"), bComments],
  ];

  test.each(cases)("%s", async (_label, key, request, countInB) => {
    const fixture = fixtures.get(key)!;
    const before = [await countInB(), await fixture.read()];
    const ghost = `${fixture.value.slice(0, 3)}${"0".repeat(fixture.value.length - 3)}`;
    const [foreign, missing] = [await request(fixture.value), await request(ghost)];
    const answer = (res: ApiResponse, id: string) => `${res.status} ${JSON.stringify(res.body?.error?.message ?? res.body).replaceAll(id, "<id>")}`;
    expect(answer(foreign, fixture.value)).toBe(answer(missing, ghost));
    expect([400, ...REFUSED]).toContain(foreign.status);
    expect([await countInB(), await fixture.read()]).toEqual(before);
  });
});
