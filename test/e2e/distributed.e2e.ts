import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  createDataset,
  createTenant,
  sampleValue,
  scrape,
  startDistributedPlatform,
  uploadFiles,
  waitFor,
  type ApiClient,
  type DistributedPlatform,
  type TestTenant,
  LEGACY_TRIGGERS,
} from "@hangar/test-harness";
import { PLATFORM_NODE_FLAGS } from "@hangar/shared";
import { ok, Status } from "./invocation-fixtures";
import { contentAt, sdkWorkspace, sha256, type SdkWorkspace } from "./sdk-fixtures";

// The distributed mode as the dev overlay deploys it (deploy/): the five services, the gateway, the
// runner and the object store each an OS process of its own from the built dist/, configured by
// the environment their manifests give them, with the harness's PostgreSQL and Kafka broker. The
// core flows go through the gateway over HTTP; events between data and compute go through Kafka;
// then one service is killed with SIGKILL mid-flow and started again.

// Counts its inputs' lines and writes a summary, with only what the runner provides.
const COUNT_LINES = `
const fs = require("node:fs");
const path = require("node:path");
const input = process.env.ROBOTO_INPUT_DIR;
const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
const files = walk(input).map((f) => path.relative(input, f)).sort();
const lines = files.reduce((n, f) => n + fs.readFileSync(path.join(input, f), "utf8").split("\\n").filter(Boolean).length, 0);
fs.writeFileSync(path.join(process.env.ROBOTO_OUTPUT_DIR, "summary.json"), JSON.stringify({ files, lines }));
`;

const TERMINAL: number[] = [Status.Completed, Status.Cancelled, Status.Failed, Status.Deadly];

let d: DistributedPlatform;
let alice: TestTenant;

beforeAll(async () => {
  d = await startDistributedPlatform();
  alice = await createTenant(d, "distributed");
  ok(await alice.client.post("/v1/actions", { name: "count-lines", container_parameters: { command: ["node", "-e", COUNT_LINES] } }));
  ok(await alice.client.post("/v1/triggers", { name: "on-logs", action_name: "count-lines", for_each: "dataset", required_inputs: ["logs/*.txt"] }, LEGACY_TRIGGERS));
}, 240_000);
afterAll(() => d?.close(), 60_000);

async function invocationsOf(client: ApiClient, datasetId: string): Promise<any[]> {
  return ok(await client.post("/v1/actions/invocations/query", { condition: { field: "data_source.data_source_id", comparator: "EQUALS", value: datasetId } })).items;
}

/** The dataset's one invocation once it is terminal (the trigger's, run by the runner process). */
async function finishedInvocation(datasetId: string): Promise<any> {
  return explained(waitFor(
    "the trigger's invocation to finish",
    async () => {
      const [invocation] = await invocationsOf(alice.client, datasetId);
      return invocation && TERMINAL.includes(invocation.last_status) ? invocation : undefined;
    },
    90_000,
    250,
  ));
}

/** The promise, whose failure carries the output of the processes that take part in the flow, which says why. */
async function explained<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    const outputs = ["data", "compute", "runner", "gateway"].map((name) => `--- ${name}\n${d.processes[name]!.output().slice(-3000)}`);
    throw new Error(`${String(error)}\n${outputs.join("\n")}`);
  }
}

test("a deleted action's comments leave every listing: the compute process's deletion event reaches the data process over Kafka", async () => {
  ok(await alice.client.post("/v1/actions", { name: "commented", uri: "registry.example.com/a:1" }));
  const created = ok(await alice.client.post("/v1/comments", { entity_type: "action", entity_id: "commented", comment_text: "soon gone" }));
  ok(await alice.client.delete("/v1/actions/commented"));
  await explained(waitFor("the comment to leave the listings", async () => (ok(await alice.client.get("/v1/comments/type/action")).total_count === 0 ? true : undefined)));
  expect(ok(await alice.client.get("/v1/comments/recent")).items.map((c: any) => c.comment_id)).not.toContain(created.comment_id);
});

test("dataset, upload, download, and the trigger fired over Kafka runs the action on the runner process to completion, once", async () => {
  const datasetId = await createDataset(alice.client, "robot-run");
  await uploadFiles(alice.client, datasetId, { "logs/a.txt": "1\n2\n3\n", "logs/b.txt": "x\n", "notes.md": "# run\n" });
  expect((await contentAt(alice.client, datasetId, "logs/a.txt")).toString()).toBe("1\n2\n3\n");

  const invocation = await finishedInvocation(datasetId);
  expect(invocation.last_status).toBe(Status.Completed);
  expect(JSON.parse((await contentAt(alice.client, datasetId, "summary.json")).toString())).toEqual({ files: ["logs/a.txt", "logs/b.txt"], lines: 4 });
  // The output's upload completed a second transaction, evaluated and skipped: still one invocation.
  await waitFor("the output upload's evaluation", async () => {
    const items = ok(await alice.client.get("/v1/triggers/on-logs/evaluations")).items as { data_source: { data_source_id: string }; status: string }[];
    const ofDataset = items.filter((e) => e.data_source.data_source_id === datasetId);
    return ofDataset.length === 2 && ofDataset.every((e) => e.status === "evaluated") ? true : undefined;
  });
  expect(await invocationsOf(alice.client, datasetId)).toHaveLength(1);
}, 150_000);

const SDK_UPLOAD = `
import json, pathlib, sys
from roboto import Dataset, RobotoClient

args = json.loads(sys.argv[1])
client = RobotoClient.from_env()
source = pathlib.Path(args["source"])
dataset = Dataset.create(name="sdk-upload", roboto_client=client)
paths = sorted(p for p in source.rglob("*") if p.is_file())
dataset.upload_files(paths, file_destination_paths={p: p.relative_to(source).as_posix() for p in paths})
print(json.dumps({"dataset_id": dataset.dataset_id, "listed": sorted(f.relative_path for f in dataset.list_files())}))
`;

describe("the public SDK", () => {
  let ws: SdkWorkspace;
  beforeAll(async () => (ws = await sdkWorkspace(d)));
  afterAll(() => ws?.close());

  test("uploads a directory through the gateway and the object store's scoped credentials", async () => {
    const source = await ws.directoryWith("upload", { "bags/run.bag": Buffer.alloc(256 * 1024, 7), "notes.md": "# sdk\n" });
    const result = await ws.sdk("upload", SDK_UPLOAD, { source }, alice.token);
    expect(result.listed).toEqual(["bags/run.bag", "notes.md"]);
    const bag = await readFile(path.join(source, "bags/run.bag"));
    expect(sha256(await contentAt(alice.client, result.dataset_id, "bags/run.bag"))).toBe(sha256(bag));
  }, 120_000);
});

/** An answer slower than this counts as a hang: the gateway's upstream deadline is well below it. */
const HANG_MS = 20_000;

/**
 * Calls a compute operation through the gateway over and over, `concurrency` at a time, until
 * stopped; records each answer's status, or `hang` when none came within `HANG_MS`.
 */
function keepCalling(concurrency: number): { statuses: (number | "hang")[]; stop(): Promise<void> } {
  const statuses: (number | "hang")[] = [];
  let running = true;
  const loop = async () => {
    while (running) {
      const response = await fetch(`${d.url}/v1/actions/count-lines`, {
        headers: { authorization: `Bearer ${alice.token}` },
        signal: AbortSignal.timeout(HANG_MS),
      }).catch(() => undefined);
      statuses.push(response?.status ?? "hang");
      await response?.arrayBuffer();
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  return {
    statuses,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

test("SIGKILL of the compute service mid-flow: calls fail cleanly with 503 meanwhile, and after its restart the upload's event is delivered once", async () => {
  const datasetId = await createDataset(alice.client, "through-a-crash");
  const calls = keepCalling(4);
  await waitFor("calls to compute to succeed", async () => (calls.statuses.includes(200) ? true : undefined));

  await d.processes.compute!.kill();
  const sinceKill = calls.statuses.length;
  // The data service completes the upload meanwhile; its event waits in Kafka for the consumer.
  await uploadFiles(alice.client, datasetId, { "logs/c.txt": "a\nb\n" });
  await waitFor("a call to the killed service to be answered", async () => (calls.statuses.slice(sinceKill).includes(503) ? true : undefined));
  await d.processes.compute!.start();
  const sinceRestart = calls.statuses.length;
  await waitFor("calls to succeed again", async () => (calls.statuses.slice(sinceRestart).includes(200) ? true : undefined), 30_000);
  await calls.stop();

  // Every call got an answer, a success or a 503 to retry: none hung, none was a 500.
  expect([...new Set(calls.statuses)].sort()).toEqual([200, 503]);
  // Each of those 503s was an upstream failure, counted by the gateway for the compute service.
  const unavailable = sampleValue(await scrape(`${d.url}/metrics`), "hangar_gateway_upstream_errors_total", { service: "hangar.compute.v1.ComputeService", code: "Unavailable" });
  expect(unavailable).toBeGreaterThanOrEqual(calls.statuses.filter((status) => status === 503).length);
  const invocation = await finishedInvocation(datasetId);
  expect(invocation.last_status).toBe(Status.Completed);
  expect(JSON.parse((await contentAt(alice.client, datasetId, "summary.json")).toString())).toEqual({ files: ["logs/c.txt"], lines: 2 });
  expect(await invocationsOf(alice.client, datasetId)).toHaveLength(1);
}, 180_000);

test("every process its manifest starts as `node <entry point>` runs with the platform's V8 flags, under that same pid, and V8 honours them", async () => {
  for (const [name, component] of Object.entries(d.processes)) {
    const commandLine = (await readFile(`/proc/${component.pid()}/cmdline`, "utf8")).split("\0");
    expect({ name, flags: commandLine.filter((arg) => PLATFORM_NODE_FLAGS.includes(arg)) }).toEqual({ name, flags: [...PLATFORM_NODE_FLAGS] });
  }
  for (const service of ["admin", "data", "compute", "assistant", "registry"]) {
    const newSpace = sampleValue(await scrape(`http://127.0.0.1:${d.localPort(service, 9464)}/metrics`), "nodejs_heap_space_size_total_bytes", { space: "new" });
    // Two semi-spaces of at most 16 MiB (V8's default lets them grow to 128 MiB together).
    expect({ service, newSpaceMiB: newSpace! / 1048576 }).toEqual({ service, newSpaceMiB: expect.any(Number) });
    expect(newSpace! / 1048576).toBeLessThanOrEqual(32);
  }
});

test("each service serves Prometheus metrics on its own METRICS_PORT: its RPCs, its outbox, its consumers' lag", async () => {
  const metricsOf = (service: string) => scrape(`http://127.0.0.1:${d.localPort(service, 9464)}/metrics`);
  ok(await alice.client.get("/v1/actions/count-lines"));
  const compute = await metricsOf("compute");
  expect(sampleValue(compute, "hangar_rpc_server_handled_total", { service: "compute", method: "GetAction", code: "OK" })).toBeGreaterThanOrEqual(1);
  expect(sampleValue(compute, "hangar_runner_queue_depth", { service: "compute" })).toEqual(expect.any(Number));
  // The trigger's consumer has committed every upload event of this file's uploads.
  await waitFor("compute's consumers to catch up", async () => {
    const lags = (await metricsOf("compute")).filter((s) => s.name === "hangar_consumer_lag_messages");
    return lags.length > 0 && lags.every((s) => s.value === 0) ? true : undefined;
  });
  for (const service of ["admin", "data", "compute", "assistant", "registry"]) {
    const samples = await metricsOf(service);
    expect({ service, pending: sampleValue(samples, "hangar_outbox_pending_events", { service }) }).toEqual({ service, pending: expect.any(Number) });
    // prom-client's process metrics come along.
    expect(sampleValue(samples, "process_cpu_seconds_total")).toBeGreaterThan(0);
  }
}, 60_000);
