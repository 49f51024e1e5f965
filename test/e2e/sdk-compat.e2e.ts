import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createTenant, startWithTenants, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { invocationPath, ok, Status } from "./invocation-fixtures";
import { contentAt, fileAtPath, perRelease, recordOf, sdkWorkspace, sha256, type SdkWorkspace } from "./sdk-fixtures";

// The public Python client SDK (PyPI `roboto`, both the pinned 0.53.0 and the newest 0.62.0, installed
// by scripts/install-python-sdk.sh) against the platform, unchanged: Python scripts drive the
// dataset, file, action, invocation and trigger flows through it, and the action they create is
// written for the SDK's action runtime and run by the platform's process runner. Every flow runs
// once per release, each in its own org (`perRelease`). Every effect is checked again through the
// gateway. sdk-compat-more.e2e.ts covers the rest of the SDK's calls to implemented operations.

let t: TestPlatform;
let alice: TestTenant;
let ws: SdkWorkspace;
let work: string;
const workspaces: SdkWorkspace[] = [];

beforeAll(async () => {
  [t] = await startWithTenants([], { runner: true });
});
afterAll(async () => {
  await t?.close();
  await Promise.all(workspaces.map((w) => w.close()));
});

const flow = perRelease(
  async (release) => {
    const workspace = await sdkWorkspace(t, release);
    workspaces.push(workspace);
    return { tenant: await createTenant(t, `sdk-compat-${release}`), workspace };
  },
  ({ tenant, workspace }) => {
    alice = tenant;
    ws = workspace;
    work = workspace.work;
  },
);

const directoryWith = (name: string, files: Record<string, string | Buffer>) => ws.directoryWith(name, files);
const sdk = (name: string, script: string, args: Record<string, unknown>) => ws.sdk(name, script, args, alice.token);

const datasetRecord = (datasetId: string) => recordOf(alice.client, datasetId);
const fileAt = (datasetId: string, relativePath: string) => fileAtPath(alice.client, datasetId, relativePath);
const contentOf = (datasetId: string, relativePath: string) => contentAt(alice.client, datasetId, relativePath);

const DATA_FLOW = `
import json, pathlib, sys
from roboto import Dataset, File, RobotoClient
from roboto.query import Comparator, Condition, QuerySpecification

args = json.loads(sys.argv[1])
client = RobotoClient.from_env()
source = pathlib.Path(args["source"])

dataset = Dataset.create(name="sdk-data-flow", description="made by the SDK", metadata={"robot": {"id": "r-7"}}, tags=["sdk"], roboto_client=client)
paths = sorted(p for p in source.rglob("*") if p.is_file())
dataset.upload_files(paths, file_destination_paths={p: p.relative_to(source).as_posix() for p in paths})

bag = dataset.get_file_by_path("bags/run.bag")
bag.download(pathlib.Path(args["download_to"]))
same_file = File.from_id(bag.file_id, roboto_client=client)
by_metadata = QuerySpecification(condition=Condition(field="metadata.robot.id", comparator=Comparator.Equals, value="r-7"))
found = [d.dataset_id for d in Dataset.query(by_metadata, roboto_client=client)]
matched = Dataset.create_if_not_exists(match_roboql_query="dataset.metadata.robot.id = 'r-7' AND dataset.tags CONTAINS 'sdk'", name="not-made", roboto_client=client)

dataset.put_metadata({"robot.firmware": "1.2", "checked": True})
dataset.put_tags(["reviewed"])
dataset.update(description="checked by the SDK")
dataset.refresh()

print(json.dumps({
    "dataset_id": dataset.dataset_id,
    "listed": sorted(f.relative_path for f in dataset.list_files()),
    "logs": sorted(f.relative_path for f in dataset.list_files(include_patterns=["logs/*"])),
    "bag": {"file_id": bag.file_id, "size": bag.record.size, "uri": bag.uri, "same_by_id": same_file.relative_path},
    "found": found,
    "matched": matched.dataset_id,
    "record": {"metadata": dataset.metadata, "tags": dataset.tags, "description": dataset.record.description},
}))
`;

flow("the SDK creates a dataset, uploads files, finds, downloads and queries them, and updates the dataset", async () => {
  const bag = randomBytes(9 * 1024 * 1024); // above boto3's 8 MiB multipart threshold
  const source = await directoryWith("data-flow", { "logs/a.txt": "1\n2\n3\n", "logs/b.txt": "x\n", "bags/run.bag": bag, "notes.md": "# run 1\n" });
  const downloadTo = path.join(work, "downloaded.bag");

  const result = await sdk("data_flow", DATA_FLOW, { source, download_to: downloadTo });

  const datasetId: string = result.dataset_id;
  expect(datasetId).toMatch(/^ds_/);
  expect(result.listed).toEqual(["bags/run.bag", "logs/a.txt", "logs/b.txt", "notes.md"]);
  expect(result.logs).toEqual(["logs/a.txt", "logs/b.txt"]);
  expect(result.bag).toEqual({ file_id: expect.stringMatching(/^fl_/), size: bag.length, uri: expect.stringMatching(/^s3:\/\//), same_by_id: "bags/run.bag" });
  expect(sha256(await readFile(downloadTo))).toBe(sha256(bag));
  expect(result.found).toEqual([datasetId]);
  expect(result.matched).toBe(datasetId);
  expect(result.record).toEqual({ metadata: { robot: { id: "r-7", firmware: "1.2" }, checked: true }, tags: ["sdk", "reviewed"], description: "checked by the SDK" });

  // The same, seen through the gateway.
  const dataset = await datasetRecord(datasetId);
  expect({ name: dataset.name, metadata: dataset.metadata, tags: dataset.tags, description: dataset.description }).toEqual({
    name: "sdk-data-flow",
    ...result.record,
  });
  expect(sha256(await contentOf(datasetId, "bags/run.bag"))).toBe(sha256(bag));
  expect((await contentOf(datasetId, "logs/a.txt")).toString()).toBe("1\n2\n3\n");
  const made = ok(await alice.client.post("/v1/datasets/query", { condition: { field: "name", comparator: "EQUALS", value: "not-made" } }));
  expect(made.items).toEqual([]); // create_if_not_exists found the dataset and made none
});

/**
 * An action written for the SDK's action runtime: reads a parameter and its inputs (downloaded by
 * the runner, and one again through the SDK), uses the SDK's client with the invocation's token,
 * writes an output with a file metadata changeset and tags the dataset.
 */
const SUMMARIZE_ACTION = `
import json
from roboto.action_runtime import InvocationContext

context = InvocationContext.from_env()
greeting = context.get_parameter("greeting")
mode = context.get_optional_parameter("mode", "none")
inputs = context.get_input()
lines = sum(len(local.read_text().splitlines()) for _, local in inputs.files)
dataset = context.dataset
print(f"{greeting} ({mode}): {len(inputs.files)} inputs, {lines} lines in dataset {dataset.name}")

first, first_local = inputs.files[0]
again = context.output_dir.parent / "again"
first.download(again)

summary = {
    "greeting": greeting,
    "mode": mode,
    "inputs": sorted(f.relative_path for f, _ in inputs.files),
    "lines": lines,
    "dataset": [dataset.dataset_id, dataset.name],
    "invocation": [context.invocation_id, context.invocation.current_status.name],
    "org": context.org.org_id,
    "downloaded_again": again.read_bytes() == first_local.read_bytes(),
}
(context.output_dir / "summary.json").write_text(json.dumps(summary))
changes = context.file_changeset_manager
changes.put_tags("summary.json", ["summary", "draft"])
changes.put_fields("summary.json", {"lines": lines, "by": {"action": "summarize"}})
changes.remove_tags("summary.json", ["draft"])
changes.set_description("summary.json", f"{lines} lines")
dataset.put_metadata({"summary": {"lines": lines}})
dataset.put_tags(["summarized"])
`;

const COMPUTE_FLOW = `
import json, pathlib, sys, time
from roboto import Action, Dataset, Invocation, RobotoClient, Trigger
from roboto.domain.actions import ActionParameter, ContainerParameters, InvocationDataSourceType, InvocationSource, InvocationStatus, TriggerForEachPrimitive

args = json.loads(sys.argv[1])
client = RobotoClient.from_env()

action = Action.create(
    name="summarize",
    container_parameters=ContainerParameters(command=[sys.executable, args["action_script"]]),
    parameters=[ActionParameter(name="greeting", required=True), ActionParameter(name="mode", default="fast")],
    roboto_client=client,
)
trigger = Trigger.create(
    name="summarize-logs", action_name="summarize", required_inputs=["logs/*.txt"], for_each=TriggerForEachPrimitive.Dataset,
    parameter_values={"greeting": "hello"}, roboto_client=client,
)

def upload(name, source):
    dataset = Dataset.create(name=name, roboto_client=client)
    source = pathlib.Path(source)
    paths = sorted(p for p in source.rglob("*") if p.is_file())
    dataset.upload_files(paths, file_destination_paths={p: p.relative_to(source).as_posix() for p in paths})
    return dataset

def finished(invocation):
    invocation.wait_for_terminal_status(timeout=40, poll_interval=0.2)
    dataset = Dataset.from_id(invocation.data_source.data_source_id, roboto_client=client)
    output = dataset.get_file_by_path("summary.json") if invocation.current_status == InvocationStatus.Completed else None
    return {
        "invocation_id": invocation.id,
        "status": invocation.current_status.name,
        "terminal": invocation.reached_terminal_status,
        "history": [s.status.name for s in invocation.record.status],
        "logs": [[r.process.value, r.log] for r in invocation.get_logs()],
        "output": output and {"file_id": output.file_id, "tags": output.tags, "metadata": output.metadata, "description": output.description},
    }

triggered = upload("robot-run", args["triggered_source"])
deadline = time.time() + 30
while not (invocations := list(trigger.get_invocations())):
    if time.time() > deadline:
        raise SystemExit("the trigger invoked nothing")
    time.sleep(0.2)
by_trigger = finished(invocations[0])

# The output upload completed a second transaction on the dataset: the trigger is evaluated again.
def evaluations_of(dataset):
    return [e for e in trigger.get_evaluations() if e.data_source.data_source_id == dataset.dataset_id]
while len(evaluations_of(triggered)) < 2:
    if time.time() > deadline:
        raise SystemExit("the output upload was not evaluated")
    time.sleep(0.2)
trigger.wait_for_evaluations_to_complete(timeout=20, poll_interval=0.2)
evaluations = sorted([e.status.value, e.outcome.value, e.outcome_reason.value if e.outcome_reason else None] for e in evaluations_of(triggered))

manual_dataset = upload("manual-run", args["manual_source"])
manual = action.invoke(
    invocation_source=InvocationSource.Manual, data_source_id=manual_dataset.dataset_id, data_source_type=InvocationDataSourceType.Dataset,
    input_data=["data/*.csv"], parameter_values={"greeting": "hi", "mode": "slow"},
)
by_hand = finished(Invocation.from_id(manual.id, roboto_client=client))

print(json.dumps({
    "action": {"name": action.name, "digest": action.digest},
    "trigger_id": trigger.trigger_id,
    "triggered_dataset": triggered.dataset_id,
    "manual_dataset": manual_dataset.dataset_id,
    "by_trigger": by_trigger,
    "by_hand": by_hand,
    "trigger_invocations": [i.id for i in trigger.get_invocations()],
    "evaluations": evaluations,
}))
`;

flow("an action written for the SDK's action runtime runs unchanged under the process runner, triggered and invoked through the SDK", async () => {
  const actionScript = path.join(work, "summarize_action.py");
  await writeFile(actionScript, SUMMARIZE_ACTION);
  const triggeredSource = await directoryWith("triggered", { "logs/a.txt": "1\n2\n3\n", "logs/b.txt": "x\n", "notes.md": "not an input\n" });
  const manualSource = await directoryWith("manual", { "data/points.csv": "x,y\n1,2\n" });

  const result = await sdk("compute_flow", COMPUTE_FLOW, { action_script: actionScript, triggered_source: triggeredSource, manual_source: manualSource });

  // What the SDK saw.
  const byTrigger = result.by_trigger;
  expect(result.action.digest).toMatch(/^[0-9a-f]+$/);
  expect(byTrigger).toMatchObject({
    status: "Completed",
    terminal: true,
    history: ["Queued", "Scheduled", "Downloading", "Processing", "Uploading", "Completed"],
    output: { tags: ["summary"], metadata: { lines: 4, by: { action: "summarize" } }, description: "4 lines" },
  });
  expect(byTrigger.logs).toContainEqual(["action", "hello (fast): 2 inputs, 4 lines in dataset robot-run"]);
  expect(byTrigger.logs).toContainEqual(["output_handler", "applied 4 file metadata updates"]);
  expect(result.trigger_invocations).toEqual([byTrigger.invocation_id]);
  // The output upload was evaluated too, and did not run the action twice.
  expect(result.evaluations).toEqual([
    ["evaluated", "invoked_action", null],
    ["evaluated", "skipped", "already_run"],
  ]);
  expect(result.by_hand).toMatchObject({ status: "Completed", output: { tags: ["summary"], metadata: { lines: 2 }, description: "2 lines" } });
  expect(result.by_hand.logs).toContainEqual(["action", "hi (slow): 1 inputs, 2 lines in dataset manual-run"]);

  // The same, seen through the gateway: the invocations, the outputs the action wrote with the
  // runtime's view of its inputs, and the metadata it set through the SDK.
  const triggered = ok(await alice.client.get(invocationPath(byTrigger.invocation_id)));
  expect(triggered.last_status).toBe(Status.Completed);
  expect(triggered.provenance.source).toEqual({ source_type: "Trigger", source_id: result.trigger_id });
  expect(triggered.parameter_values).toEqual({ greeting: "hello", mode: "fast" });
  expect(JSON.parse((await contentOf(result.triggered_dataset, "summary.json")).toString())).toEqual({
    greeting: "hello",
    mode: "fast",
    inputs: ["logs/a.txt", "logs/b.txt"],
    lines: 4,
    dataset: [result.triggered_dataset, "robot-run"],
    invocation: [byTrigger.invocation_id, "Processing"],
    org: alice.orgId,
    downloaded_again: true,
  });
  expect(JSON.parse((await contentOf(result.manual_dataset, "summary.json")).toString())).toMatchObject({
    greeting: "hi",
    mode: "slow",
    inputs: ["data/points.csv"],
    dataset: [result.manual_dataset, "manual-run"],
    downloaded_again: true,
  });
  const output = await fileAt(result.triggered_dataset, "summary.json");
  expect({ tags: output.tags, metadata: output.metadata, description: output.description, origination: output.origination }).toEqual({
    tags: ["summary"],
    metadata: { lines: 4, by: { action: "summarize" } },
    description: "4 lines",
    origination: `invocation ${byTrigger.invocation_id}`,
  });
  const dataset = await datasetRecord(result.triggered_dataset);
  expect({ metadata: dataset.metadata, tags: dataset.tags }).toEqual({ metadata: { summary: { lines: 4 } }, tags: ["summarized"] });
});
