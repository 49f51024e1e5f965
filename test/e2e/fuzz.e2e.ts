import type { DescField } from "@bufbuild/protobuf";
import type { Route } from "@hangar/gateway";
import {
  apiClient,
  createDataset,
  createDevice,
  createDeviceType,
  formatOffences,
  generateFuzzCases,
  judgeOutcome,
  routeSites,
  sendFuzzCases,
  startWithTenants,
  summarizeOutcomes,
  uploadFiles,
  type ApiClient,
  type FuzzCase,
  type FuzzOutcome,
  type TestPlatform,
  type TestTenant,
  LEGACY_TRIGGERS,
} from "@hangar/test-harness";

// Issue 9: bad input never gets a 5xx. Every operation of the gateway's own route table (built from
// the protos' google.api.http bindings, so a new operation is fuzzed the day it lands) gets, per
// path variable, body field, nested field, query parameter and whole body, each class of bad input:
// wrong JSON types, out-of-range numbers, 1 MiB strings, 10,000-level JSON, NUL bytes, invalid
// UTF-8, path traversal, bad page tokens, unknown enum values, huge arrays, malformed JSON.
// Every answer must be a 2xx with the data envelope or a 4xx with the error envelope, in time, and
// the platform must still answer afterwards. It runs as the owner of a throwaway org, so a mutation
// that succeeds and writes is fine; ids of real resources fill the fields it is not mutating.

let t: TestPlatform;
let alice: TestTenant;
let orgId: string;
let cases: FuzzCase[];
let outcomes: FuzzOutcome[];

/** The first offences listed when the suite fails. */
const REPORTED = 20;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["fuzz"]);
  orgId = await createOwnedOrg(alice.client);
  const client = apiClient(t.url, alice.token, { "X-Service-Org-Id": orgId });
  const fixtures = await createResources(client);
  cases = inDestructiveOrder(generateFuzzCases(t.platform.gateway.routes, { fixtures: fixtureValues(fixtures) }));
  outcomes = await sendFuzzCases(cases, {
    baseUrl: t.url,
    headers: { authorization: `Bearer ${alice.token}`, "x-service-org-id": orgId },
    // Few at a time: updates of one record queue on its row lock, and their wait counts against the timeout.
    concurrency: 4,
    timeoutMs: 10_000,
  });
  console.log(summarizeOutcomes(outcomes, t.platform.gateway.routes.length));
}, 1_200_000);
afterAll(() => t?.close());

test("every operation of the route table is sent its baseline and a mutation of each of its sites", () => {
  const routes = t.platform.gateway.routes;
  const expected = routes.flatMap((route) => [`${operationOf(route)} (baseline)`, ...routeSites(route).map((s) => `${operationOf(route)} ${s.label}`)]);
  const sent = new Set(outcomes.map((o) => `${o.fuzzCase.operation} ${o.fuzzCase.target}`));
  expect(expected.filter((site) => !sent.has(site))).toEqual([]);
  expect(new Set(outcomes.map((o) => o.fuzzCase.operation)).size).toBe(routes.length);
});

test("no answer is a 5xx, a hang, a dropped connection or a body outside the envelopes", () => {
  const offences = outcomes.map(judgeOutcome).filter((o) => o !== undefined);
  const report = formatOffences(offences.slice(0, REPORTED));
  if (offences.length > REPORTED) report.push(`... and ${offences.length - REPORTED} more of ${outcomes.length} requests`);
  expect(report).toEqual([]);
});

test("the platform still answers afterwards", async () => {
  const res = await alice.client.get("/v1/users/whoami");
  expect({ status: res.status, user: res.body?.data?.user_id }).toEqual({ status: 200, user: alice.userId });
});

function operationOf(route: Route): string {
  return `${route.httpMethod} ${route.template.template}`;
}

/** An org alice creates herself, so that she is its owner and every operation is open to her. */
async function createOwnedOrg(client: ApiClient): Promise<string> {
  const res = await client.post("/v1/orgs", { name: "fuzz-owned" });
  if (res.status !== 200) throw new Error(`create org failed: ${JSON.stringify(res.body)}`);
  return res.body.data.org_id;
}

/** Real resources of every kind an operation takes an id of, in the owned org. */
async function createResources(client: ApiClient): Promise<Record<string, string>> {
  const datasetId = await createDataset(client, "fuzz");
  await uploadFiles(client, datasetId, { "dir/a.txt": "hello" });
  const pending = await uploadFiles(client, datasetId, { "dir/pending.txt": "later" }, { complete: false });
  const files = await ok(client.post(`/v1/datasets/${datasetId}/files/query`, {}));
  const fileId: string = files.items.find((f: { relative_path: string }) => f.relative_path === "dir/a.txt").file_id;
  const member = `fuzz-member-${Date.now()}@example.com`;
  await ok(client.post("/v1/users", { user_id: member, org_id: orgId }));
  const token = await ok(client.post("/v1/tokens", { name: "throwaway", expiry_days: 1 }));
  const device = await createDevice(client, { device_id: "fuzz-device" });
  const deviceType = await createDeviceType(client, { name: "fuzz-type" });
  const action = await ok(client.post("/v1/actions", { name: "fuzz-action", uri: "registry.example.com/fuzz:1" }));
  const invocation = await ok(
    client.post(`/v1/actions/${action.name}/invoke`, { data_source_id: datasetId, data_source_type: "Dataset", input_data: ["**/*"], invocation_source: "Manual" }),
  );
  const trigger = await ok(client.post("/v1/triggers", { name: "fuzz-trigger", action_name: action.name, for_each: "dataset", required_inputs: ["*.txt"] }, LEGACY_TRIGGERS));
  const modelTrigger = await ok(
    client.post("/v1/triggers", { name: "fuzz-trigger-v2", fires_on: { type: "events", events: ["dataset.created"], once_per: "occurrence" }, targets: [{ type: "invoke_action", target_id: "run", action: { name: action.name } }] }),
  );
  const exportJob = await ok(client.post("/v1/files/export", { node_ids: [fileId] }));
  const comment = await ok(client.post("/v1/comments", { entity_type: "dataset", entity_id: datasetId, comment_text: `hello @[Member](${member})` }));
  // --- topics ---
  const topic = await ok(
    client.post("/v1/topics", { association: { association_id: datasetId }, topic_name: "/fuzz", message_paths: [{ message_path: "x", data_type: "f64", canonical_data_type: "number" }] }),
  );
  const fileTopic = { topic_name: "/fuzz-file", topic_schema: { fields: [{ name: "x", data_type: "f64" }] }, timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: 1, max_file_timestamp_ns: 2 }] };
  await ok(client.post(`/v1/files/id/${fileId}/topics`, { topics: [fileTopic] }));
  const session = await ok(client.post("/v1/sessions", { name: "fuzz-session", device_ids: [device.device_id] }));
  const event = await ok(client.post("/v1/events/create", { name: "fuzz-event", start_time: 1, end_time: 2, associations: [{ association_id: datasetId, association_type: "dataset" }] }));
  // --- ingestion rules ---
  const rule = await ok(client.post("/v1/ingestion-rules", { name: "fuzz-rule", include_patterns: ["*.txt"], invocation: { action: { name: action.name } } }));
  // --- collections ---
  const collection = await ok(client.post("/v1/collections/create", { name: "fuzz-collection", resources: [{ resource_type: "dataset", resource_id: datasetId }] }));
  // --- metrics ---
  const metric = await ok(client.post("/v1/metrics/definition", { name: "fuzz.metric" }));
  return {
    rule_id: rule.rule_id,
    collection_id: collection.collection_id,
    resource_id: datasetId,
    resource_type: "dataset",
    content_mode: "full",
    topic_id: topic.topic_id,
    encoded_association: `dataset:${datasetId}`,
    url_quoted_topic_name: "/fuzz",
    message_path_id: topic.message_paths[0].message_path_id,
    fs_node_id: fileId,
    storage_format: "mcap",
    canonical_data_type: "number",
    kind: "mcap_log_time",
    org_id: orgId,
    user_id: member,
    url_encoded_user_id: member,
    token_id: token.token_id,
    dataset_id: datasetId,
    association_id: datasetId,
    data_source_id: datasetId,
    file_id: fileId,
    target_file_id: fileId,
    node_ids: fileId,
    file_ids: fileId,
    upload_id: pending.transactionId,
    device_id: device.device_id,
    device_type_id: deviceType.device_type_id,
    action_name: action.name,
    invocation_id: invocation.invocation_id,
    trigger_name: trigger.name,
    trigger_id: modelTrigger.trigger_id,
    export_job_id: exportJob.export_job_id,
    directory_path: "dir",
    url_quoted_file_path: "dir/a.txt",
    association_type: "dataset",
    data_source_type: "Dataset",
    invocation_source: "Manual",
    for_each: "dataset",
    comment_id: comment.comment_id,
    entity_type: "dataset",
    entity_id: datasetId,
    comment_text: "a comment",
    read_status: "read",
    key: "notification_channels",
    session_id: session.session_id,
    session_ids: session.session_id,
    event_id: event.event_id,
    event_ids: event.event_id,
    metric_name: metric.name,
  };
}

/** Fixture values by field name; `name` in a path is the action's, the trigger's or the metric's, by the route. */
function fixtureValues(ids: Record<string, string>) {
  return (route: Route, field: DescField): unknown => {
    if (field.name !== "name" || !route.template.variables.some((v) => v.name === "name")) return ids[field.name];
    if (route.template.template.startsWith("/v1/metrics")) return ids.metric_name;
    return route.template.template.startsWith("/v1/triggers") ? ids.trigger_name : ids.action_name;
  };
}

/**
 * Deletes last, and the baseline deletes (the ones that succeed) after all else, so that the real
 * resources live while the other operations are fuzzed.
 */
function inDestructiveOrder(all: FuzzCase[]): FuzzCase[] {
  const rank = (c: FuzzCase) => (c.route.httpMethod !== "DELETE" ? 0 : c.mutationClass === "baseline" ? 2 : 1);
  return [...all].sort((a, b) => rank(a) - rank(b));
}

async function ok(response: Promise<{ status: number; body: any }>): Promise<any> {
  const res = await response;
  if (res.status !== 200) throw new Error(`fixture request failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}
