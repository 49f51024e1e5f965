import { createDataset, sampleValue, scrape, startWithTenants, waitFor, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { createAction, invoke } from "./invocation-fixtures";

// GET /metrics on the gateway: Prometheus text without a token. In the embedded platform the
// services run in the gateway's process, so the same scrape shows their RPC metrics and gauges;
// distributed.e2e.ts scrapes each service's own METRICS_PORT.

let t: TestPlatform;
let alice: TestTenant;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["metrics"]);
});
afterAll(() => t?.close());

const metrics = () => scrape(`${t.url}/metrics`);

test("counts and times the gateway's requests by operation and status", async () => {
  const before = await metrics();
  const count = (samples: typeof before, status: string) =>
    sampleValue(samples, "hangar_gateway_request_duration_seconds_count", { operation: "DataService.GetDataset", status }) ?? 0;
  const datasetId = await createDataset(alice.client, "measured");
  expect((await alice.client.get(`/v1/datasets/${datasetId}`)).status).toBe(200);
  expect((await alice.client.get(`/v1/datasets/${datasetId}`)).status).toBe(200);
  expect((await alice.client.get("/v1/datasets/ds_nosuchdataset")).status).toBe(404);

  const after = await metrics();
  expect(count(after, "200") - count(before, "200")).toBe(2);
  expect(count(after, "404") - count(before, "404")).toBe(1);
  const labels = { operation: "DataService.GetDataset", status: "200" };
  // Cumulative buckets: +Inf holds every request, and the sum is a positive number of seconds.
  expect(sampleValue(after, "hangar_gateway_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(count(after, "200"));
  expect(sampleValue(after, "hangar_gateway_request_duration_seconds_sum", labels)).toBeGreaterThan(0);
  // The scrapes themselves are requests too, of no operation.
  expect(sampleValue(after, "hangar_gateway_request_duration_seconds_count", { operation: "unrouted", status: "200" })).toBeGreaterThanOrEqual(1);
});

test("counts the services' RPCs by method and gRPC code", async () => {
  expect((await alice.client.get("/v1/datasets/ds_nosuchdataset2")).status).toBe(404);
  const samples = await metrics();
  expect(sampleValue(samples, "hangar_rpc_server_handled_total", { service: "data", method: "GetDataset", code: "NotFound" })).toBeGreaterThanOrEqual(1);
  expect(sampleValue(samples, "hangar_rpc_server_handled_total", { service: "admin", method: "AuthenticateToken", code: "OK" })).toBeGreaterThanOrEqual(1);
  expect(sampleValue(samples, "hangar_rpc_server_duration_seconds_count", { service: "data", method: "GetDataset" })).toBeGreaterThanOrEqual(1);
});

test("samples each service's outbox and the runner queue at scrape time", async () => {
  // No runner runs here: an invocation stays Queued.
  const datasetId = await createDataset(alice.client, "queued");
  const queuedBefore = sampleValue(await metrics(), "hangar_runner_queue_depth", { service: "compute" });
  const action = await createAction(alice.client);
  await invoke(alice.client, datasetId, action.name);
  const samples = await metrics();
  expect(sampleValue(samples, "hangar_runner_queue_depth", { service: "compute" })).toBe(queuedBefore! + 1);
  for (const service of ["admin", "data", "compute", "assistant", "registry"]) {
    expect(sampleValue(samples, "hangar_outbox_pending_events", { service })).toEqual(expect.any(Number));
  }
  // The dataset's events are relayed at once: the outbox drains to nothing pending.
  await waitFor("the data outbox to drain", async () => (sampleValue(await metrics(), "hangar_outbox_pending_events", { service: "data" }) === 0 ? true : undefined));
  expect(sampleValue(await metrics(), "hangar_outbox_lag_seconds", { service: "data" })).toBe(0);
});
