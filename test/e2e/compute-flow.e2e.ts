import { createDataset, startWithTenants, uploadFiles, waitFor, type TestPlatform, type TestTenant, LEGACY_TRIGGERS } from "@hangar/test-harness";

// The whole compute path with a real Kafka broker: files uploaded through the gateway complete a
// transaction; the upload-completed event reaches the compute service, whose trigger creates one
// invocation; the process runner claims it, downloads the inputs, runs the action, uploads what it
// wrote into the dataset and reports Completed, with logs. The output upload completes another
// transaction, so the trigger is evaluated again: it must not run twice.

// The action: counts the lines of its input files and writes a summary, using only the runtime
// environment a runner provides (the client SDK's action runtime reads the same variables).
const COUNT_LINES = `
const fs = require("node:fs");
const path = require("node:path");
const input = process.env.ROBOTO_INPUT_DIR;
const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
const files = walk(input).map((f) => path.relative(input, f)).sort();
const lines = files.reduce((n, f) => n + fs.readFileSync(path.join(input, f), "utf8").split("\\n").filter(Boolean).length, 0);
console.log("counted " + lines + " lines in " + files.length + " files");
fs.writeFileSync(path.join(process.env.ROBOTO_OUTPUT_DIR, "summary.json"), JSON.stringify({ files, lines, invocation: process.env.ROBOTO_INVOCATION_ID }));
`;

let t: TestPlatform;
let alice: TestTenant;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["compute-flow"], { kafka: true, runner: true });
});
afterAll(() => t?.close());

interface Invocation {
  invocation_id: string;
  last_status: number;
  provenance: { source: { source_type: string; source_id: string } };
}

async function invocationsOf(datasetId: string): Promise<Invocation[]> {
  const res = await alice.client.post("/v1/actions/invocations/query", {
    condition: { field: "data_source.data_source_id", comparator: "EQUALS", value: datasetId },
  });
  expect(res.status).toBe(200);
  return res.body.data.items;
}

test("an upload fires the trigger, the process runner runs the action once and its output lands in the dataset", async () => {
  const action = await alice.client.post("/v1/actions", { name: "count-lines", container_parameters: { command: ["node", "-e", COUNT_LINES] } });
  expect(action.status).toBe(200);
  const trigger = await alice.client.post("/v1/triggers", { name: "on-logs", action_name: "count-lines", for_each: "dataset", required_inputs: ["logs/*.txt"] }, LEGACY_TRIGGERS);
  expect(trigger.status).toBe(200);
  const triggerId: string = trigger.body.data.trigger_id;

  const datasetId = await createDataset(alice.client, "robot-run");
  await uploadFiles(alice.client, datasetId, { "logs/a.txt": "1\n2\n3\n", "logs/b.txt": "x\n", "notes.md": "not an input\n" });

  const finished = await waitFor(
    "the trigger's invocation to finish",
    async () => {
      const [invocation] = await invocationsOf(datasetId);
      return invocation && [5, 997, 998, 999].includes(invocation.last_status) ? invocation : undefined;
    },
    60_000,
  );
  expect(finished.last_status).toBe(5);
  expect(finished.provenance.source).toEqual({ source_type: "Trigger", source_id: triggerId });

  const got = (await alice.client.get(`/v1/actions/invocations/${finished.invocation_id}`)).body.data;
  expect(got.status.map((s: { status: number }) => s.status)).toEqual([0, 1, 2, 3, 4, 5]);

  const logs = await alice.client.get(`/v1/actions/invocations/${finished.invocation_id}/logs`);
  expect(logs.status).toBe(200);
  expect(logs.body.data.items.map((l: { log: string }) => l.log)).toContain("counted 4 lines in 2 files");

  const output = await alice.client.get(`/v1/files/record/path/${encodeURIComponent("summary.json")}/association/${datasetId}`);
  expect(output.status).toBe(200);
  const signed = await alice.client.get(`/v1/files/${output.body.data.file_id}/signed-url`);
  expect(signed.status).toBe(200);
  const content = await (await fetch(signed.body.data.url)).json();
  expect(content).toEqual({ files: ["logs/a.txt", "logs/b.txt"], lines: 4, invocation: finished.invocation_id });

  // The output upload completed a second transaction on the dataset: the trigger was evaluated
  // again and skipped it, so there is still exactly one invocation.
  const evaluations = await waitFor("the second evaluation", async () => {
    const res = await alice.client.get(`/v1/triggers/on-logs/evaluations`);
    const items = res.body.data.items as { status: string; outcome: string | null; outcome_reason: string | null }[];
    return items.length >= 2 && items.every((e) => e.status === "evaluated") ? items : undefined;
  });
  expect(evaluations.map((e) => [e.outcome, e.outcome_reason]).sort()).toEqual([
    ["invoked_action", null],
    ["skipped", "already_run"],
  ]);
  expect(await invocationsOf(datasetId)).toHaveLength(1);
});
