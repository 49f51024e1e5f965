import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDataset, startWithTenants, uploadFiles, waitFor, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { backdateStart, invocationPath, ok, Status } from "./invocation-fixtures";

// Real actions run by the platform's process runner: a node script invoked through the gateway
// reads its inputs and the runtime files, calls the API with the invocation's token, writes
// outputs and metadata changesets; the runner uploads and applies them. Failing, timing out and
// cancelled actions end Failed or Cancelled with their processes gone. Leases are short so that a
// cancel reaches the runner within a second.

let t: TestPlatform;
let alice: TestTenant;
let probes: string;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["runner"], { runner: true, compute: { leases: { leaseMs: 3000 } } });
  probes = await mkdtemp(path.join(tmpdir(), "hangar-runner-probes-"));
});
afterAll(async () => {
  await t?.close();
  await rm(probes, { recursive: true, force: true });
});

/** Reads the inputs, the runtime files and its environment, calls the API, writes outputs and changesets. */
const SUMMARIZE = `
const fs = require("node:fs");
const path = require("node:path");
const env = process.env;
const root = process.cwd();
const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
const inputs = walk(env.ROBOTO_INPUT_DIR).map((f) => path.relative(env.ROBOTO_INPUT_DIR, f)).sort();
const lines = inputs.reduce((n, f) => n + fs.readFileSync(path.join(env.ROBOTO_INPUT_DIR, f), "utf8").split("\\n").filter(Boolean).length, 0);
console.log("read " + inputs.length + " input files");
console.error("a line on stderr");
const relative = (value) => (value.startsWith(root) ? "<root>" + value.slice(root.length) : value);
(async () => {
  const res = await fetch(env.ROBOTO_SERVICE_ENDPOINT + "/v1/datasets/" + env.ROBOTO_DATASET_ID, { headers: { authorization: "Bearer " + env.ROBOTO_API_KEY } });
  const report = {
    inputs,
    env: Object.fromEntries(Object.entries(env).filter(([k]) => k !== "ROBOTO_API_KEY" && k !== "PATH").map(([k, v]) => [k, relative(v)])),
    apiKey: env.ROBOTO_API_KEY.slice(0, 4),
    parameters: JSON.parse(fs.readFileSync(env.ROBOTO_ACTION_PARAMETERS_FILE, "utf8")),
    manifest: JSON.parse(fs.readFileSync(env.ROBOTO_ACTION_INPUTS_MANIFEST, "utf8")),
    api: { status: res.status, name: (await res.json()).data.name },
  };
  report.manifest.files = report.manifest.files.map(([record, local]) => [record.relative_path, record.file_id.slice(0, 3), local && relative(local)]);
  fs.mkdirSync(path.join(env.ROBOTO_OUTPUT_DIR, "nested"), { recursive: true });
  fs.writeFileSync(path.join(env.ROBOTO_OUTPUT_DIR, "result.txt"), lines + " lines\\n");
  fs.writeFileSync(path.join(env.ROBOTO_OUTPUT_DIR, "nested", "report.json"), JSON.stringify(report));
  fs.writeFileSync(env.ROBOTO_DATASET_METADATA_CHANGESET_FILE, JSON.stringify({ put_tags: ["summarized"], put_fields: { "summary.lines": lines } }));
  const change = (update) => fs.appendFileSync(env.ROBOTO_FILE_METADATA_CHANGESET_FILE, JSON.stringify({ relative_path: "result.txt", update }) + "\\n");
  change({ metadata_changeset: { put_tags: ["result", "draft"] }, description: null });
  change({ metadata_changeset: { remove_tags: ["draft"], put_fields: { lines } }, description: "the summary" });
})().catch((error) => { console.error(String(error)); process.exit(2); });
`;

/**
 * Records its pid and a child's in PROBE_DIR/<name>.json, ignores SIGTERM (so only the SIGKILL
 * that follows stops it) and would write PROBE_DIR/<name>.late after 8 s.
 */
const LINGER = `
const fs = require("node:fs");
const path = require("node:path");
const probe = (ext) => path.join(process.env.PROBE_DIR, process.env.PROBE_NAME + ext);
const child = require("node:child_process").spawn("sleep", ["60"], { stdio: "ignore" });
fs.writeFileSync(probe(".json"), JSON.stringify({ pids: [process.pid, child.pid], root: process.cwd() }));
process.on("SIGTERM", () => console.log("ignoring SIGTERM"));
console.log("started");
setTimeout(() => fs.writeFileSync(probe(".late"), "still running"), 8000);
setInterval(() => undefined, 1000);
`;

let counter = 0;

async function createAction(body: Record<string, unknown>): Promise<string> {
  const name = `action-${++counter}`;
  ok(await alice.client.post("/v1/actions", { name, ...body }));
  return name;
}

const node = (script: string, env: Record<string, string> = {}) => ({ container_parameters: { command: ["node", "-e", script], env_vars: env } });

async function invoke(action: string, datasetId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const body = { data_source_id: datasetId, data_source_type: "Dataset", input_data: ["logs/*.txt"], invocation_source: "Manual", ...extra };
  return ok(await alice.client.post(`/v1/actions/${action}/invoke`, body)).invocation_id;
}

async function invocation(id: string): Promise<any> {
  return ok(await alice.client.get(invocationPath(id)));
}

/** Waits for the invocation to reach a final status (or Failed) and returns it. */
function finished(id: string): Promise<any> {
  return waitFor(`invocation ${id} to finish`, async () => {
    const record = await invocation(id);
    return [Status.Completed, Status.Cancelled, Status.Failed, Status.Deadly].includes(record.last_status) ? record : undefined;
  });
}

async function logsOf(id: string): Promise<[string, string][]> {
  return ok(await alice.client.get(invocationPath(id, "/logs"))).items.map((l: { process: string; log: string }) => [l.process, l.log]);
}

async function fileAt(datasetId: string, relativePath: string): Promise<any> {
  return ok(await alice.client.get(`/v1/files/record/path/${encodeURIComponent(relativePath)}/association/${datasetId}`));
}

async function contentOf(datasetId: string, relativePath: string): Promise<string> {
  const file = await fileAt(datasetId, relativePath);
  const { url } = ok(await alice.client.get(`/v1/files/${file.file_id}/signed-url`));
  return (await fetch(url)).text();
}

async function datasetWithLogs(): Promise<string> {
  const datasetId = await createDataset(alice.client, "robot-run");
  await uploadFiles(alice.client, datasetId, { "logs/a.txt": "1\n2\n3\n", "logs/b.txt": "x\n", "notes.md": "not an input\n" });
  return datasetId;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for the probe a LINGER action writes once it runs. */
async function probeOf(name: string): Promise<{ pids: number[]; root: string }> {
  const file = path.join(probes, `${name}.json`);
  return waitFor(`${name} to start`, async () => (existsSync(file) ? JSON.parse(await readFile(file, "utf8")) : undefined));
}

/** Waits until the action's processes are gone and the runner has removed its workspace. */
async function expectStopped(name: string, probe: { pids: number[]; root: string }): Promise<void> {
  await waitFor(`${name}'s processes to die`, async () => (probe.pids.some(isAlive) || existsSync(probe.root) ? undefined : true));
  expect(existsSync(path.join(probes, `${name}.late`))).toBe(false);
}

test("an action reads its inputs and runtime files, calls the API with its token, and its outputs and changesets land in the dataset", async () => {
  const datasetId = await datasetWithLogs();
  const action = await createAction({ ...node(SUMMARIZE, { EXTRA: "1" }), parameters: [{ name: "greeting", required: true }, { name: "mode", default: "fast" }] });
  const id = await invoke(action, datasetId, { parameter_values: { greeting: "hi" }, timeout: 600 });

  const done = await finished(id);

  expect(done.status.map((s: { status: number; detail: string | null }) => [s.status, s.detail])).toEqual([
    [Status.Queued, null],
    [Status.Scheduled, `claimed by runner ${t.runner!.runnerId}`],
    [Status.Downloading, null],
    [Status.Processing, null],
    [Status.Uploading, null],
    [Status.Completed, null],
  ]);
  expect(await contentOf(datasetId, "result.txt")).toBe("4 lines\n");
  const report = JSON.parse(await contentOf(datasetId, "nested/report.json"));
  const inherited = Object.fromEntries(["LANG", "LC_ALL", "TZ"].filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
  expect(report).toEqual({
    inputs: ["logs/a.txt", "logs/b.txt"],
    env: {
      ...inherited,
      AWS_ENDPOINT_URL_S3: t.objectStore.location.endpoint,
      EXTRA: "1",
      HOME: "<root>",
      ROBOTO_INPUT_DIR: "<root>/input",
      ROBOTO_OUTPUT_DIR: "<root>/output",
      ROBOTO_INVOCATION_ID: id,
      ROBOTO_DATASET_ID: datasetId,
      ROBOTO_ORG_ID: alice.orgId,
      ROBOTO_ACTION_PARAMETERS_FILE: "<root>/.roboto/action_parameters.json",
      ROBOTO_ACTION_INPUTS_MANIFEST: "<root>/.roboto/action_inputs_manifest.json",
      ROBOTO_ACTION_TIMEOUT: "600",
      ROBOTO_ACTION_RUNTIME_CONFIG_DIR: "<root>/.roboto",
      ROBOTO_SERVICE_ENDPOINT: t.url,
      ROBOTO_DATASET_METADATA_CHANGESET_FILE: "<root>/.roboto/dataset_metadata_changeset.json",
      ROBOTO_FILE_METADATA_CHANGESET_FILE: "<root>/.roboto/file_metadata_changeset.jsonl",
      ROBOTO_PARAM_greeting: "hi",
      ROBOTO_PARAM_mode: "fast",
    },
    apiKey: "hgi_",
    parameters: { greeting: "hi", mode: "fast" },
    manifest: {
      files: [
        ["logs/a.txt", "fl_", "<root>/input/logs/a.txt"],
        ["logs/b.txt", "fl_", "<root>/input/logs/b.txt"],
      ],
      topics: [],
    },
    api: { status: 200, name: "robot-run" },
  });

  const dataset = ok(await alice.client.get(`/v1/datasets/${datasetId}`));
  expect(dataset.tags).toEqual(["summarized"]);
  expect(dataset.metadata).toEqual({ summary: { lines: 4 } });
  const result = await fileAt(datasetId, "result.txt");
  expect({ tags: result.tags, metadata: result.metadata, description: result.description, origination: result.origination }).toEqual({
    tags: ["result"],
    metadata: { lines: 4 },
    description: "the summary",
    origination: `invocation ${id}`,
  });
  const logs = await logsOf(id);
  expect(logs.filter(([process]) => process !== "action")).toEqual([
    ["setup", "resolving inputs logs/*.txt"],
    ["setup", "downloaded 2 input files"],
    ["setup", "starting the action (process executor)"],
    ["output_handler", "uploaded 2 output files"],
    ["output_handler", "applied the dataset metadata changeset"],
    ["output_handler", "applied 2 file metadata updates"],
  ]);
  // stdout and stderr are read side by side, so their lines may interleave either way.
  expect(logs.filter(([process]) => process === "action").sort()).toEqual([
    ["action", "a line on stderr"],
    ["action", "read 2 input files"],
  ]);
});

test("inputs that need not be downloaded are listed in the manifest without local paths", async () => {
  const datasetId = await datasetWithLogs();
  const script = `
    const fs = require("node:fs");
    const manifest = JSON.parse(fs.readFileSync(process.env.ROBOTO_ACTION_INPUTS_MANIFEST, "utf8"));
    const listing = fs.readdirSync(process.env.ROBOTO_INPUT_DIR);
    fs.writeFileSync(process.env.ROBOTO_OUTPUT_DIR + "/seen.json", JSON.stringify({ files: manifest.files.map(([r, p]) => [r.relative_path, p]), listing }));`;
  const action = await createAction({ ...node(script), requires_downloaded_inputs: false });
  const id = await invoke(action, datasetId);

  expect((await finished(id)).last_status).toBe(Status.Completed);
  expect(JSON.parse(await contentOf(datasetId, "seen.json"))).toEqual({ files: [["logs/a.txt", null], ["logs/b.txt", null]], listing: [] });
});

test("outputs go under an upload destination's prefix, or into the dataset it names", async () => {
  const datasetId = await datasetWithLogs();
  const elsewhere = await createDataset(alice.client, "results");
  const script = `
    const fs = require("node:fs");
    fs.writeFileSync(process.env.ROBOTO_OUTPUT_DIR + "/out.txt", "output");
    fs.appendFileSync(process.env.ROBOTO_FILE_METADATA_CHANGESET_FILE, JSON.stringify({ relative_path: "out.txt", update: { metadata_changeset: { put_tags: ["out"] } } }) + "\\n");`;
  const action = await createAction(node(script));

  const prefixed = await invoke(action, datasetId, { upload_destination: { bucket: "results", prefix: "runs/1" } });
  const redirected = await invoke(action, datasetId, { upload_destination: { destination_type: "Dataset", destination_id: elsewhere } });

  expect((await finished(prefixed)).last_status).toBe(Status.Completed);
  expect((await finished(redirected)).last_status).toBe(Status.Completed);
  expect(await contentOf(datasetId, "runs/1/out.txt")).toBe("output");
  expect((await fileAt(datasetId, "runs/1/out.txt")).tags).toEqual(["out"]);
  expect(await contentOf(elsewhere, "out.txt")).toBe("output");
  expect((await fileAt(elsewhere, "out.txt")).tags).toEqual(["out"]);
  expect((await alice.client.get(`/v1/files/record/path/out.txt/association/${datasetId}`)).status).toBe(404);
});

test("an action that exits with 1 fails with its exit code, its output kept in the logs", async () => {
  const action = await createAction(node(`console.error("bad input"); process.exit(1);`));
  const id = await invoke(action, await datasetWithLogs());

  const done = await finished(id);

  expect(done.last_status).toBe(Status.Failed);
  expect(done.status.at(-1)).toMatchObject({ status: Status.Failed, detail: "exited with code 1" });
  expect(await logsOf(id)).toContainEqual(["action", "bad input"]);
});

test("an action without a command, or whose program does not exist, fails saying so", async () => {
  const bare = await createAction({});
  const missing = await createAction({ container_parameters: { command: ["hangar-no-such-program"] } });
  const datasetId = await datasetWithLogs();

  const bareRun = await finished(await invoke(bare, datasetId));
  const missingRun = await finished(await invoke(missing, datasetId));

  expect(bareRun.status.at(-1)).toMatchObject({ status: Status.Failed, detail: "no command to run" });
  expect(missingRun.status.at(-1)).toMatchObject({ status: Status.Failed, detail: "could not start the action: spawn hangar-no-such-program ENOENT" });
});

test("an action past its timeout is killed and fails as timed out", async () => {
  const action = await createAction(node(LINGER, { PROBE_DIR: probes, PROBE_NAME: "timeout" }));
  const id = await invoke(action, await datasetWithLogs(), { timeout: 1 });
  const probe = await probeOf("timeout");
  await backdateStart(t, id, 2);

  const done = await finished(id);

  expect(done.status.at(-1)).toMatchObject({ status: Status.Failed, detail: "timed out after 1 min" });
  await expectStopped("timeout", probe);
});

test("cancelling a running invocation kills its processes, and it stays Cancelled", async () => {
  const action = await createAction(node(LINGER, { PROBE_DIR: probes, PROBE_NAME: "cancel" }));
  const id = await invoke(action, await datasetWithLogs());
  const probe = await probeOf("cancel");

  ok(await alice.client.post(invocationPath(id, "/cancel")));
  await expectStopped("cancel", probe);

  const record = await invocation(id);
  expect(record.last_status).toBe(Status.Cancelled);
  expect(record.status.at(-1)).toMatchObject({ status: Status.Cancelled, detail: `cancelled by ${alice.userId}` });
  expect(record.status.map((s: { status: number }) => s.status)).toEqual([Status.Queued, Status.Scheduled, Status.Downloading, Status.Processing, Status.Cancelled]);
});
