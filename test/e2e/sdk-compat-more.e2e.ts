import { createTenant, startWithTenants, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { invocationPath, ok, Status } from "./invocation-fixtures";
import { contentAt, fileAtPath, perRelease, recordOf, SDK_VERSION, sdkWorkspace, type SdkRelease, type SdkWorkspace } from "./sdk-fixtures";

// The rest of the public Python client SDK's calls to the implemented operations (sdk-compat.e2e.ts
// has the main data and compute flows): dataset edits and paged queries, directories, file records,
// versions, imports, downloads and deletes, action queries and edits, invocation status, logs and
// cancellation, trigger queries, edits and evaluations, users, orgs, roles and API tokens, and devices and their tokens. Each
// script prints what the SDK saw; the test checks it and the effects again through the gateway.
// Every flow runs once per SDK release (0.53.0 and 0.62.0), each release in its own orgs.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let ws: SdkWorkspace;
let release: SdkRelease;
const workspaces: SdkWorkspace[] = [];

beforeAll(async () => {
  [t] = await startWithTenants([], { runner: true });
});
afterAll(async () => {
  await t?.close();
  await Promise.all(workspaces.map((w) => w.close()));
});

const flow = perRelease(
  async (which) => {
    const workspace = await sdkWorkspace(t, which);
    workspaces.push(workspace);
    return { alice: await createTenant(t, `sdk-more-${which}`), bob: await createTenant(t, `sdk-more-other-${which}`), workspace };
  },
  (context, which) => {
    ({ alice, bob } = context);
    ws = context.workspace;
    release = which;
  },
);

/** What every script starts with: the SDK's client from the environment, its JSON argument and helpers. */
const PRELUDE = `
import json, os, pathlib, sys, time, urllib.request
from roboto import Action, Dataset, File, Invocation, RobotoClient, Trigger
from roboto.domain.actions import (
    Accessibility, ActionParameter, ActionParameterChangeset, ContainerParameters, InvocationDataSource,
    InvocationDataSourceType, InvocationSource, InvocationStatus, LogsLocation, TriggerEvaluationCause, TriggerForEachPrimitive,
)
from roboto.exceptions import RobotoDomainException
from roboto.http import BearerTokenDecorator
from roboto.query import Comparator, Condition, ConditionGroup, ConditionOperator, QuerySpecification, SortDirection
from roboto.updates import MetadataChangeset

args = json.loads(sys.argv[1])
client = RobotoClient.from_env()

def client_with(token):
    return RobotoClient(endpoint=os.environ["ROBOTO_SERVICE_ENDPOINT"], auth_decorator=BearerTokenDecorator(token))

def error_of(call):
    """The name of the SDK exception a call raises, or None."""
    try:
        call()
    except RobotoDomainException as error:
        return type(error).__name__
    return None

def where(field, comparator, value):
    return Condition(field=field, comparator=comparator, value=value)

def all_of(*conditions):
    return ConditionGroup(operator=ConditionOperator.And, conditions=list(conditions))

def wait_until(check, what, timeout=20):
    deadline = time.time() + timeout
    while not (result := check()):
        if time.time() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.2)
    return result
`;

const run = (name: string, script: string, args: Record<string, unknown> = {}, tenant: TestTenant = alice) => ws.sdk(name, PRELUDE + script, args, tenant.token);

const DATASETS = `
dataset = Dataset.create(name="to-edit", description="before", metadata={"vehicle": {"id": "v1", "model": "m"}, "drop": 1}, tags=["a", "b"], roboto_client=client)
dataset.update(name="renamed", description=None)
dataset.put_metadata({"vehicle.firmware": "2.0", "weather.condition": "sunny"})
dataset.remove_metadata(["drop", "weather.condition"])
dataset.put_tags(["c"])
dataset.remove_tags(["a"])
dataset.update(metadata_changeset=MetadataChangeset(put_fields={"vehicle.model": "m2"}, remove_fields=["vehicle.id"], put_tags=["d"], remove_tags=["b"]))
dataset.set_custom_fields({"owner": "ops", "review": "open"})
dataset.clear_custom_field("review")
same = Dataset.from_id(dataset.dataset_id, roboto_client=client)

for i in range(7):
    Dataset.create(name=f"page-{i}", metadata={"batch": "paged", "i": i}, tags=["paged"], roboto_client=client)
by_name = QuerySpecification(condition=where("metadata.batch", Comparator.Equals, "paged"), limit=2, sort_by="name", sort_direction=SortDirection.Ascending)
newest_first = QuerySpecification(condition=where("tags", Comparator.Contains, "paged"), limit=3)
grouped = QuerySpecification(condition=all_of(where("tags", Comparator.Contains, "paged"), where("metadata.i", Comparator.GreaterThanOrEqual, 5)), limit=1)

doomed = Dataset.create(name="doomed", roboto_client=client)
doomed.delete()

print(json.dumps({
    "dataset_id": dataset.dataset_id,
    "seen": {k: same.record.model_dump(mode="json")[k] for k in ("name", "description", "metadata", "tags", "custom_fields")},
    "paged": [d.name for d in Dataset.query(by_name, roboto_client=client)],
    "newest_first": [d.name for d in Dataset.query(newest_first, roboto_client=client)],
    "grouped": sorted(d.name for d in Dataset.query(grouped, roboto_client=client)),
    "doomed": [doomed.dataset_id, error_of(lambda: Dataset.from_id(doomed.dataset_id, roboto_client=client))],
}))
`;

flow("datasets: from_id, update, metadata, tag and custom-field edits, paged queries and delete through the SDK", async () => {
  const result = await run("datasets", DATASETS);

  const expected = {
    name: "renamed",
    description: null,
    // Removing `weather.condition` removes the object it left empty, as the SDK's changesets do.
    metadata: { vehicle: { model: "m2", firmware: "2.0" } },
    tags: ["c", "d"],
    custom_fields: { owner: "ops", review: null },
  };
  expect(result.seen).toEqual(expected);
  const record = await recordOf(alice.client, result.dataset_id);
  expect({ name: record.name, description: record.description, metadata: record.metadata, tags: record.tags, custom_fields: record.custom_fields }).toEqual(expected);

  // Seven datasets two at a time: the SDK follows next_token through four pages.
  expect(result.paged).toEqual(["page-0", "page-1", "page-2", "page-3", "page-4", "page-5", "page-6"]);
  expect(result.newest_first).toEqual(["page-6", "page-5", "page-4", "page-3", "page-2", "page-1", "page-0"]);
  expect(result.grouped).toEqual(["page-5", "page-6"]);

  const [doomedId, error] = result.doomed;
  expect(error).toBe("RobotoNotFoundException");
  expect((await alice.client.get(`/v1/datasets/${doomedId}`)).status).toBe(404);
});

const FILES = `
work = pathlib.Path(args["work"])
dataset = Dataset.create(name="files", roboto_client=client)
dataset.upload_directory(pathlib.Path(args["source"]), print_progress=False)

made = dataset.create_directory("made", parent_path=pathlib.Path("empty/dirs"), create_intermediate_dirs=True)
exists = error_of(lambda: dataset.create_directory("made", parent_path=pathlib.Path("empty/dirs"), error_if_exists=True))
directories = sorted(d.relative_path for d in dataset.list_directories())

a = dataset.get_file_by_path("a.txt")
a.put_metadata({"sensor.kind": "lidar", "n": 3})
a.put_tags(["raw", "lidar"])
a.update(description="the a file")
a.mark_ingested()
edited = File.from_id(a.file_id, roboto_client=client).record
plain = urllib.request.urlopen(a.get_signed_url()).read().decode()
as_csv = urllib.request.urlopen(a.get_signed_url(override_content_type="text/csv", override_content_disposition="attachment; filename=a.csv"))

in_dataset = where("association_id", Comparator.Equals, dataset.dataset_id)
tagged = sorted(f.relative_path for f in File.query(QuerySpecification(condition=all_of(in_dataset, where("tags", Comparator.Contains, "lidar"))), roboto_client=client))
by_metadata = sorted(f.relative_path for f in File.query(QuerySpecification(condition=all_of(in_dataset, where("metadata.sensor.kind", Comparator.Equals, "lidar"))), roboto_client=client))
one_at_a_time = sorted(f.relative_path for f in File.query(QuerySpecification(condition=in_dataset, limit=1), roboto_client=client))

renamed = dataset.rename_file(a.file_id, "renamed/a.txt").relative_path
moved = dataset.rename_directory("logs/deep", "logs/shallow").relative_path

version = work / "version.txt"
version.write_text("one")
dataset.upload_file(version, "version.txt", print_progress=False)
version.write_text("two!")
dataset.upload_file(version, "version.txt", print_progress=False)
latest = dataset.get_file_by_path("version.txt")
first = dataset.get_file_by_path("version.txt", version_id=1)
first_by_id = File.from_id(latest.file_id, version_id=1, roboto_client=client)

from roboto.domain.files import ImportFileRequest
imported = File.import_one(dataset.dataset_id, "imported/first.txt", first.uri, tags=["imported"], metadata={"from": "v1"}, roboto_client=client)
batch = File.import_batch([ImportFileRequest(dataset_id=dataset.dataset_id, relative_path=f"imported/{i}.txt", uri=latest.uri) for i in range(2)], roboto_client=client)

out = work / "download"
downloaded = dataset.download_files(out, include_patterns=["**/*.log", "version.txt"], print_progress=False)

dataset.delete_files(include_patterns=["**/*.log"])
latest.delete()

print(json.dumps({
    "dataset_id": dataset.dataset_id,
    "made": [made.relative_path, made.fs_type.value, made.origination],
    "exists": exists,
    "directories": directories,
    "a": {"file_id": a.file_id, "metadata": edited.metadata, "tags": edited.tags, "description": edited.description, "ingestion": edited.ingestion_status.value},
    "signed": [plain, as_csv.headers.get("content-type"), as_csv.headers.get("content-disposition")],
    "queries": [tagged, by_metadata, one_at_a_time],
    "renamed": [renamed, moved],
    "versions": [latest.version, first.version, first.record.size, first_by_id.record.size, latest.record.size, first.file_id == latest.file_id],
    "imported": [imported.relative_path, imported.record.storage_type.value, imported.tags, [f.relative_path for f in batch]],
    "downloaded": {str(local.relative_to(out)): local.read_text() for _, local in downloaded},
    "remaining": sorted(f.relative_path for f in dataset.list_files()),
}))
`;

flow("files: directories, file edits, signed URLs, queries, renames, versions, imports, downloads and deletes through the SDK", async () => {
  const source = await ws.directoryWith("files", { "a.txt": "a\n", "logs/x.log": "x\n", "logs/deep/y.log": "y\n", "notes/n.md": "# n\n" });

  const result = await run("files", FILES, { source, work: ws.work });

  const datasetId: string = result.dataset_id;
  expect(result.made).toEqual(["empty/dirs/made", "directory", `roboto ${SDK_VERSION[release]}`]);
  expect(result.exists).toBe("RobotoConflictException");
  expect(result.directories).toEqual(["empty", "empty/dirs", "empty/dirs/made", "logs", "logs/deep", "notes"]);
  const edits = { metadata: { sensor: { kind: "lidar" }, n: 3 }, tags: ["raw", "lidar"], description: "the a file" };
  expect(result.a).toEqual({ file_id: expect.stringMatching(/^fl_/), ...edits, ingestion: "ingested" });
  expect(result.signed).toEqual(["a\n", "text/csv", "attachment; filename=a.csv"]);
  expect(result.queries).toEqual([["a.txt"], ["a.txt"], ["a.txt", "logs/deep/y.log", "logs/x.log", "notes/n.md"]]);
  expect(result.renamed).toEqual(["renamed/a.txt", "logs/shallow"]);
  expect(result.versions).toEqual([2, 1, 3, 3, 4, true]);
  expect(result.imported).toEqual(["imported/first.txt", "imported", ["imported"], ["imported/0.txt", "imported/1.txt"]]);
  expect(result.downloaded).toEqual({ "logs/x.log": "x\n", "logs/shallow/y.log": "y\n", "version.txt": "two!" });
  const remaining = ["imported/0.txt", "imported/1.txt", "imported/first.txt", "notes/n.md", "renamed/a.txt"];
  expect(result.remaining).toEqual(remaining);

  // The same, seen through the gateway.
  const a = ok(await alice.client.get(`/v1/files/record/${result.a.file_id}`));
  expect({ relative_path: a.relative_path, metadata: a.metadata, tags: a.tags, description: a.description, ingestion_status: a.ingestion_status }).toEqual({
    relative_path: "renamed/a.txt",
    ...edits,
    ingestion_status: "ingested",
  });
  expect((await contentAt(alice.client, datasetId, "imported/first.txt")).toString()).toBe("one");
  expect((await contentAt(alice.client, datasetId, "imported/1.txt")).toString()).toBe("two!");
  expect((await fileAtPath(alice.client, datasetId, "imported/first.txt")).metadata).toEqual({ from: "v1" });
  const listed = ok(await alice.client.post(`/v1/datasets/${datasetId}/files/query`, {}));
  expect(listed.items.map((f: { relative_path: string }) => f.relative_path).sort()).toEqual(remaining);
  expect((await alice.client.get(`/v1/files/record/path/version.txt/association/${datasetId}`)).status).toBe(404);
});

const ACTIONS = `
other = client_with(args["other_token"])
action = Action.create(
    name="detector", uri="registry.example.com/detector:1", description="finds things", metadata={"team": "perception", "drop": 1}, tags=["t1"],
    parameters=[ActionParameter(name="threshold", required=True), ActionParameter(name="mode", default="fast")], timeout=10, roboto_client=client,
)
first_digest = action.digest
for i in range(4):
    Action.create(name=f"paged-{i}", uri="registry.example.com/paged:1", tags=["paged"], roboto_client=client)
paged = sorted(a.name for a in Action.query(QuerySpecification(condition=where("tags", Comparator.Contains, "paged"), limit=2), roboto_client=client))
by_metadata = [a.name for a in Action.query(QuerySpecification(condition=where("metadata.team", Comparator.Equals, "perception")), roboto_client=client)]

action.update(metadata_changeset=MetadataChangeset(put_fields={"owner": "ops"}, remove_fields=["drop"], put_tags=["t2"]))
digest_after_metadata = action.digest
action.update(
    parameter_changeset=ActionParameterChangeset(put_parameters=[ActionParameter(name="extra", default=5)], remove_parameters=["mode"]),
    description=None, timeout=20, uri="registry.example.com/detector:2",
)
first = Action.from_name("detector", digest=first_digest, roboto_client=client)

by_name = QuerySpecification(condition=where("name", Comparator.Equals, "detector"))
hub_before = [(a.name, a.org_id) for a in Action.query(by_name, accessibility=Accessibility.ActionHub, roboto_client=other)]
action.set_accessibility(Accessibility.ActionHub)
hub = [(a.name, a.org_id) for a in Action.query(by_name, accessibility=Accessibility.ActionHub, roboto_client=other)]
read_by_other = Action.from_name("detector", owner_org_id=action.org_id, roboto_client=other).digest
action.set_accessibility(Accessibility.Organization)
hub_after = [(a.name, a.org_id) for a in Action.query(by_name, accessibility=Accessibility.ActionHub, roboto_client=other)]

doomed = Action.from_name("paged-0", roboto_client=client)
doomed.delete()

print(json.dumps({
    "org_id": action.org_id,
    "paged": paged,
    "by_metadata": by_metadata,
    "digests": [first_digest, digest_after_metadata, action.digest],
    "current": {"metadata": action.metadata, "tags": action.tags, "parameters": [p.model_dump() for p in action.parameters], "description": action.description, "timeout": action.timeout, "uri": action.uri},
    "first": {"parameters": [p.name for p in first.parameters], "timeout": first.timeout, "uri": first.uri},
    "hub": [hub_before, hub, read_by_other == action.digest, hub_after],
    "deleted": error_of(lambda: Action.from_name("paged-0", roboto_client=client)),
}))
`;

flow("actions: paged queries, metadata and parameter edits, digests, Action Hub accessibility and delete through the SDK", async () => {
  const result = await run("actions", ACTIONS, { other_token: bob.token });

  expect(result.paged).toEqual(["paged-0", "paged-1", "paged-2", "paged-3"]);
  expect(result.by_metadata).toEqual(["detector"]);
  const [first, afterMetadata, current] = result.digests;
  expect(afterMetadata).toBe(first); // metadata and tags are not part of the definition
  expect(current).not.toBe(first);
  const edited = {
    metadata: { team: "perception", owner: "ops" },
    tags: ["t1", "t2"],
    parameters: [
      { name: "threshold", required: true, description: null, default: null },
      { name: "extra", required: false, description: null, default: "5" },
    ],
    description: null,
    timeout: 20,
    uri: "registry.example.com/detector:2",
  };
  expect(result.current).toEqual(edited);
  expect(result.first).toEqual({ parameters: ["threshold", "mode"], timeout: 10, uri: "registry.example.com/detector:1" });
  expect(result.hub).toEqual([[], [["detector", alice.orgId]], true, []]);
  expect(result.deleted).toBe("RobotoNotFoundException");

  // The same, seen through the gateway.
  const action = ok(await alice.client.get("/v1/actions/detector"));
  expect({ ...edited, parameters: action.parameters, accessibility: action.accessibility, digest: action.digest }).toEqual({
    ...edited,
    accessibility: "organization",
    digest: current,
  });
  expect(ok(await alice.client.get(`/v1/actions/detector?digest=${first}`)).timeout).toBe(10);
  expect((await alice.client.get("/v1/actions/paged-0")).status).toBe(404);
});

const INVOCATIONS = `
dataset = Dataset.create(name="inputs", roboto_client=client)
bag = pathlib.Path(args["bag"])
dataset.upload_file(bag, "in.bag", print_progress=False)
def invoke(action, **extra):
    return action.invoke(InvocationSource.Manual, data_source_id=dataset.dataset_id, data_source_type=InvocationDataSourceType.Dataset, input_data=["*.bag"], **extra)

# An image and no command: the process runner never claims its invocations, so they stay Queued.
waits = Action.create(name="waits", uri="registry.example.com/waits:1", parameters=[ActionParameter(name="n", default="0")], roboto_client=client)
queued = [invoke(waits, parameter_values={"n": str(i)}, idempotency_id=f"more-{i}") for i in range(5)]
repeated = invoke(waits, idempotency_id="more-0").id == queued[0].id
of_waits = where("provenance.action.name", Comparator.Equals, "waits")
paged = sorted(i.id for i in Invocation.query(QuerySpecification(condition=of_waits, limit=2), roboto_client=client))
still_queued = len(list(Invocation.query(QuerySpecification(condition=all_of(of_waits, where("last_status", Comparator.Equals, 0))), roboto_client=client)))

moved = queued[0]
moved.update_status(InvocationStatus.Scheduled, "picked up")
moved.update_status(InvocationStatus.Downloading)
refused = error_of(lambda: moved.update_status(InvocationStatus.Queued))
moved.set_container_image_digest("sha256:" + "ab" * 32)
moved.set_logs_location(LogsLocation(bucket="logs", prefix="more/"))
moved.cancel()
moved.refresh()

failing = queued[1]
for status in (InvocationStatus.Failed, InvocationStatus.Queued, InvocationStatus.Failed, InvocationStatus.Queued, InvocationStatus.Failed):
    failing.update_status(status)  # the third failure is sent as Deadly by the SDK

untouched = Invocation.from_id(queued[2].id, roboto_client=client)

loud = Action.create(name="loud", container_parameters=ContainerParameters(command=[sys.executable, "-c", "for i in range(1200): print(f'line {i}')"]), roboto_client=client)
ran = invoke(loud)
ran.wait_for_terminal_status(timeout=30, poll_interval=0.2)
logs = [(r.process.value, r.log) for r in ran.get_logs()]
stream = ran.stream_logs()
streamed = []
try:
    while True:
        streamed.append((lambda r: (r.process.value, r.log))(next(stream)))
except StopIteration as end:
    last_read = end.value

sleepy = Action.create(name="sleepy", container_parameters=ContainerParameters(command=[sys.executable, "-c", "import time; print('started', flush=True); time.sleep(30)"]), roboto_client=client)
running = invoke(sleepy)
wait_until(lambda: running.refresh().current_status == InvocationStatus.Processing, "the sleepy action to start")
running.cancel()
wait_until(lambda: running.refresh().reached_terminal_status, "the cancelled action to stop")

print(json.dumps({
    "queued": [i.id for i in queued],
    "repeated": repeated,
    "paged": paged,
    "still_queued": still_queued,
    "moved": {"history": [s.status.name for s in moved.status_log], "refused": refused, "terminal": moved.reached_terminal_status},
    "failing": [s.status.name for s in failing.status_log],
    "untouched": [untouched.current_status.name, untouched.is_queued_for_scheduling(), list(untouched.get_logs()), list(untouched.stream_logs()), untouched.parameter_values],
    "ran": {"id": ran.id, "status": ran.current_status.name, "count": len(logs), "action": [log for process, log in logs if process == "action"], "streamed_same": streamed == logs, "last_read": last_read},
    "running": [s.status.name for s in running.status_log],
}))
`;

flow("invocations: paged queries, status moves, container info, logs location, logs, streams and cancellation through the SDK", async () => {
  const bag = (await ws.directoryWith("invocations", { "in.bag": "bag" })) + "/in.bag";

  const result = await run("invocations", INVOCATIONS, { bag });

  expect(result.repeated).toBe(true);
  expect(result.paged).toEqual([...result.queued].sort());
  expect(result.still_queued).toBe(5);
  expect(result.moved).toEqual({ history: ["Queued", "Scheduled", "Downloading", "Cancelled"], refused: "RobotoInvalidRequestException", terminal: true });
  expect(result.failing).toEqual(["Queued", "Failed", "Queued", "Failed", "Queued", "Deadly"]);
  expect(result.untouched).toEqual(["Queued", true, [], [], { n: "2" }]);
  // 1200 action lines and the runner's own: more than one page of 1000.
  expect(result.ran).toMatchObject({ status: "Completed", streamed_same: true, last_read: expect.any(String) });
  expect(result.ran.count).toBeGreaterThan(1200);
  expect(result.ran.action).toEqual(Array.from({ length: 1200 }, (_, i) => `line ${i}`));
  expect(result.running).toEqual(["Queued", "Scheduled", "Downloading", "Processing", "Cancelled"]);

  // The same, seen through the gateway.
  const moved = ok(await alice.client.get(invocationPath(result.queued[0])));
  expect({ last_status: moved.last_status, executable: moved.provenance.executable, upload_destination: moved.upload_destination }).toEqual({
    last_status: Status.Cancelled,
    executable: { container_image_uri: "registry.example.com/waits:1", container_image_digest: `sha256:${"ab".repeat(32)}` },
    upload_destination: { bucket: "logs", prefix: "more/" },
  });
  expect(ok(await alice.client.get(invocationPath(result.queued[1]))).last_status).toBe(Status.Deadly);
  const firstPage = ok(await alice.client.get(invocationPath(result.ran.id, "/logs")));
  expect([firstPage.items.length, firstPage.next_token]).toEqual([1000, expect.any(String)]);
});

const TRIGGERS = `
target = Action.create(name="target", uri="registry.example.com/target:1", parameters=[ActionParameter(name="n", default="0")], roboto_client=client)
triggers = [
    Trigger.create(
        name=f"on-bags-{i}", action_name="target", required_inputs=["**/*.bag"], for_each=TriggerForEachPrimitive.Dataset,
        condition=where("dataset.metadata.go", Comparator.Equals, "yes"), parameter_values={"n": str(i)},
        causes=[TriggerEvaluationCause.FileUpload], timeout=5, roboto_client=client,
    )
    for i in range(3)
]
watching, disabled, unmatched = triggers
paged = sorted(tr.name for tr in Trigger.query(QuerySpecification(condition=where("action.name", Comparator.Equals, "target"), limit=1), roboto_client=client))
found = Trigger.from_name("on-bags-0", roboto_client=client).trigger_id == watching.trigger_id
watching.disable()
seen_disabled = Trigger.from_name("on-bags-0", roboto_client=client).enabled
watching.enable()
go = ConditionGroup(operator=ConditionOperator.Or, conditions=[where("dataset.metadata.go", Comparator.Equals, "yes"), where("dataset.tags", Comparator.Contains, "go")])
watching.update(condition=go, parameter_values={"n": "7"})
disabled.disable()

dataset = Dataset.create(name="watched", tags=["go"], roboto_client=client)
dataset.upload_file(pathlib.Path(args["bag"]), "run.bag", print_progress=False)
def settled():
    evaluations = list(Trigger.get_evaluations_for_dataset(dataset.dataset_id, roboto_client=client))
    return len(evaluations) == 3 and all(e.status.value != "pending" for e in evaluations) and evaluations
evaluations = wait_until(settled, "three evaluations")
watching.wait_for_evaluations_to_complete(timeout=10, poll_interval=0.2)
latest = watching.latest_evaluation()
invoked = [i.id for i in watching.get_invocations()]
by_hand = watching.invoke(InvocationDataSource(data_source_type=InvocationDataSourceType.Dataset, data_source_id=dataset.dataset_id), idempotency_id="by-hand")

unmatched.delete()

print(json.dumps({
    "paged": paged,
    "found": found,
    "seen_disabled": seen_disabled,
    "watching": {k: watching.record.model_dump(mode="json")[k] for k in ("enabled", "condition", "parameter_values", "causes", "timeout", "required_inputs")},
    "evaluations": sorted([e.trigger_id, e.status.value, e.outcome.value, e.outcome_reason.value if e.outcome_reason else None, e.cause.value] for e in evaluations),
    "latest": [latest.trigger_id, latest.outcome.value],
    "ids": [tr.trigger_id for tr in triggers],
    "invoked": invoked,
    "by_hand": [by_hand.id, by_hand.source.source_type.value, by_hand.parameter_values],
    "deleted": error_of(lambda: Trigger.from_name("on-bags-2", roboto_client=client)),
}))
`;

flow("triggers: paged queries, enable and disable, condition edits, evaluations, invocations and delete through the SDK", async () => {
  const bag = (await ws.directoryWith("triggers", { "run.bag": "bag" })) + "/run.bag";

  const result = await run("triggers", TRIGGERS, { bag });

  const [watching, disabled, unmatched] = result.ids;
  expect(result.paged).toEqual(["on-bags-0", "on-bags-1", "on-bags-2"]);
  expect([result.found, result.seen_disabled]).toEqual([true, false]);
  const go = {
    operator: "OR",
    conditions: [
      { field: "dataset.metadata.go", comparator: "EQUALS", value: "yes" },
      { field: "dataset.tags", comparator: "CONTAINS", value: "go" },
    ],
  };
  expect(result.watching).toEqual({ enabled: true, condition: go, parameter_values: { n: "7" }, causes: ["file_upload"], timeout: 5, required_inputs: ["**/*.bag"] });
  expect(result.evaluations).toEqual(
    [
      [watching, "evaluated", "invoked_action", null, "file_upload"],
      [disabled, "evaluated", "skipped", "trigger_disabled", "file_upload"],
      [unmatched, "evaluated", "skipped", "condition_not_met", "file_upload"],
    ].sort(),
  );
  expect(result.latest).toEqual([watching, "invoked_action"]);
  expect(result.invoked).toHaveLength(1);
  expect(result.by_hand).toEqual([expect.stringMatching(/^iv_/), "Trigger", { n: "7" }]);
  expect(result.deleted).toBe("RobotoNotFoundException");

  // The same, seen through the gateway.
  const trigger = ok(await alice.client.get("/v1/triggers/on-bags-0"));
  expect({ condition: trigger.condition, enabled: trigger.enabled }).toEqual({ condition: go, enabled: true });
  expect(ok(await alice.client.get("/v1/triggers/on-bags-1")).enabled).toBe(false);
  expect((await alice.client.get("/v1/triggers/on-bags-2")).status).toBe(404);
  const invocation = ok(await alice.client.get(invocationPath(result.invoked[0])));
  expect({ source: invocation.provenance.source, parameter_values: invocation.parameter_values }).toEqual({
    source: { source_type: "Trigger", source_id: watching },
    parameter_values: { n: "7" },
  });
});

const IDENTITY = `
from roboto.auth.scope import ApiScope
from roboto.domain.orgs import Org, OrgRoleName
from roboto.domain.tokens import Token
from roboto.domain.users import CreateUserRequest, User

me = User.for_self(roboto_client=client)
org = Org.for_self(roboto_client=client)[0]
same_org = Org.from_id(org.org_id, roboto_client=client).name == org.name
orgs_of_me = [o.org_id for o in Org.for_user(me.user_id, roboto_client=client)]
roles = lambda: {u.user.user_id: [r.value for r in u.roles] for u in org.users()}

dana = User.create(CreateUserRequest(user_id=args["new_user"], name="Dana"), roboto_client=client)
org.add_role_for_user(dana.user_id, OrgRoleName.admin)
with_admin = roles()
org.remove_role_from_user(dana.user_id, OrgRoleName.admin)
without_admin = roles()
org.remove_user(dana.user_id)
after_removal = roles()

token, secret = Token.create(name="sdk-token", description="made by the SDK", expiry_days=2, api_scopes={ApiScope.FilesUpload}, roboto_client=client)
as_token = client_with(secret)
works = User.for_self(roboto_client=as_token).user_id
listed = sorted(tk.record.context.name for tk in Token.for_self(roboto_client=client))
fetched = Token.from_id(token.token_id, roboto_client=client).record
token.disable()
disabled = [Token.from_id(token.token_id, roboto_client=client).record.context.enabled, error_of(lambda: User.for_self(roboto_client=as_token))]
token.enable()
enabled = User.for_self(roboto_client=as_token).user_id
token.delete()
deleted = error_of(lambda: User.for_self(roboto_client=as_token))

# A second org: the caller now belongs to two. Creates must name one; calls on an existing
# resource name only its owner, as the SDK sends them.
second = Org.create(name="sdk-second-org", roboto_client=client)
must_name = error_of(lambda: Action.create(name="which-org", uri="registry.example.com/x:1", roboto_client=client))
action = Action.create(name="in-second", uri="registry.example.com/x:1", caller_org_id=second.org_id, roboto_client=client)
action.update(description="edited naming only the owner")
read_back = Action.from_name("in-second", owner_org_id=second.org_id, roboto_client=client).description
action.delete()

print(json.dumps({
    "me": [me.user_id, me.record.is_service_user],
    "org": [org.org_id, org.tier.value, org.status.value, same_org, orgs_of_me],
    "dana": dana.user_id,
    "roles": [with_admin, without_admin, after_removal],
    "token": {
        "works": works, "listed": listed, "disabled": disabled, "enabled": enabled, "deleted": deleted,
        "fetched": [fetched.secret, fetched.user_id, fetched.context.token_id == token.token_id, fetched.context.name, fetched.context.description, sorted(s.value for s in fetched.context.api_scopes)],
    },
    "second": [second.org_id, sorted(o.name for o in Org.for_self(roboto_client=client))],
    "must_name": must_name,
    "read_back": read_back,
    "deleted_action": error_of(lambda: Action.from_name("in-second", owner_org_id=second.org_id, roboto_client=client)),
}))
`;

flow("identity: users, orgs, roles and API tokens, and a caller in two orgs, through the SDK", async () => {
  const carol = await createTenant(t, `sdk-identity-${release}`);
  // The SDK creates users in the caller's org, which takes an org admin.
  ok(await t.admin.put(`/v1/orgs/id/${carol.orgId}/users/id/${encodeURIComponent(carol.userId)}`, { add_roles: ["admin"] }));
  const newUser = `dana-${carol.orgId}@example.com`;

  const result = await run("identity", IDENTITY, { new_user: newUser }, carol);

  expect(result.me).toEqual([carol.userId, false]);
  expect(result.org).toEqual([carol.orgId, "free", "active", true, [carol.orgId]]);
  expect(result.dana).toBe(newUser);
  // The org was made by the bootstrap admin, its owner; every member holds `user`.
  const base = { admin: ["owner", "user"], [carol.userId]: ["admin", "user"] };
  expect(result.roles).toEqual([
    { ...base, [newUser]: ["admin", "user"] },
    { ...base, [newUser]: ["user"] },
    base,
  ]);
  expect(result.token).toEqual({
    works: carol.userId,
    listed: ["sdk-token", "test"],
    fetched: [null, carol.userId, true, "sdk-token", "made by the SDK", ["files.upload"]],
    disabled: [false, "RobotoUnauthorizedException"],
    enabled: carol.userId,
    deleted: "RobotoUnauthorizedException",
  });
  const [secondOrg, names] = result.second;
  expect(names).toEqual([`sdk-identity-${release}`, "sdk-second-org"]);
  expect(result.must_name).toBe("RobotoInvalidRequestException");
  expect(result.read_back).toBe("edited naming only the owner");
  expect(result.deleted_action).toBe("RobotoNotFoundException");

  // The same, seen through the gateway.
  const members = ok(await carol.client.get(`/v1/orgs/id/${carol.orgId}/users`, { "X-Service-Org-Id": carol.orgId }));
  expect(members.map((m: { user: { user_id: string } }) => m.user.user_id).sort()).toEqual(["admin", carol.userId].sort());
  const tokens = ok(await carol.client.get("/v1/tokens"));
  expect(tokens.map((tk: { context: { name: string } }) => tk.context.name)).toEqual(["test"]);
  const inSecond = ok(await carol.client.get(`/v1/orgs/id/${secondOrg}/users`, { "X-Service-Org-Id": secondOrg }));
  expect(inSecond.map((m: { user: { user_id: string }; roles: string[] }) => [m.user.user_id, m.roles])).toEqual([[carol.userId, ["owner", "user"]]]);
  expect((await carol.client.get("/v1/actions/in-second", { "X-Service-Org-Id": secondOrg })).status).toBe(404);
});

const DEVICES = `
from roboto import Device

device = Device.create(device_id=args["device_id"], metadata={"model": "mk2"}, tags=["a"], custom_fields={"owner": "ops"}, roboto_client=client)
same = Device.from_id(args["device_id"], roboto_client=client)
edited = same.put_metadata({"firmware.version": "2.0"}).put_tags(["b"]).remove_tags(["a"]).remove_metadata(["model"]).set_custom_field("shift", "night")
read_back = Device.from_id(args["device_id"], roboto_client=client, org_id=device.org_id)
Device.create(device_id="sdk-second", roboto_client=client)
listed = [d.device_id for d in Device.for_org(device.org_id, roboto_client=client)]
duplicate = error_of(lambda: Device.create(device_id=args["device_id"], roboto_client=client))
edited.delete()
print(json.dumps({
    "created": [device.device_id, device.org_id, device.metadata, device.tags, device.custom_fields, device.created_by],
    "same": same.record.model_dump(mode="json") == device.record.model_dump(mode="json"),
    "edited": [read_back.metadata, read_back.tags, read_back.custom_fields],
    "listed": listed,
    "duplicate": duplicate,
    "deleted": error_of(lambda: Device.from_id(args["device_id"], roboto_client=client)),
    "other": error_of(lambda: Device.from_id("sdk-second", roboto_client=client_with(args["other_token"]))),
}))
`;

flow("devices: create, from_id with a '/' in the id, metadata, tag and custom-field edits, for_org, a duplicate and delete through the SDK", async () => {
  const deviceId = "sdk/robot 1";
  const result = await run("devices", DEVICES, { device_id: deviceId, other_token: bob.token });

  expect(result).toEqual({
    created: [deviceId, alice.orgId, { model: "mk2" }, ["a"], { owner: "ops" }, alice.userId],
    same: true,
    edited: [{ firmware: { version: "2.0" } }, ["b"], { owner: "ops", shift: "night" }],
    listed: ["sdk-second", deviceId],
    duplicate: "RobotoConflictException",
    deleted: "RobotoNotFoundException",
    other: "RobotoNotFoundException",
  });
  // The same, seen through the gateway.
  expect((await alice.client.get(`/v1/devices/id/${encodeURIComponent(deviceId)}`)).status).toBe(404);
  expect(ok(await alice.client.get(`/v1/devices/org/${alice.orgId}`)).items.map((d: { device_id: string }) => d.device_id)).toEqual(["sdk-second"]);
});

const DEVICE_TOKENS = `
import datetime
from roboto import Device
from roboto.auth.scope import ApiScope
from roboto.domain.users import User

device = Device.create(device_id=args["device_id"], roboto_client=client)
token, secret = device.create_token(expiry_days=30, description="uploads", api_scopes=ApiScope.minimal_uploader())
default_token, _ = device.create_token()
as_device = client_with(secret)
me = User.for_self(roboto_client=as_device)
dataset = Dataset.create(name="from-the-device", roboto_client=as_device)
listed = device.tokens()
member_create = error_of(lambda: Device.from_id(args["device_id"], roboto_client=client_with(args["member_token"])).create_token())
device.delete()
print(json.dumps({
    "token": [token.user_id, token.record.context.name, token.record.context.description, sorted(s.value for s in token.record.context.api_scopes)],
    "default": [default_token.record.context.name, round((default_token.record.context.expires - datetime.datetime.now(datetime.timezone.utc)).total_seconds() / 86400)],
    "me": [me.user_id, me.record.is_service_user],
    "dataset": [dataset.record.org_id, dataset.record.created_by],
    "listed": [[tk.token_id, tk.record.secret] for tk in listed] == [[token.token_id, None], [default_token.token_id, None]],
    "member_create": member_create,
    "after_delete": error_of(lambda: User.for_self(roboto_client=as_device)),
}))
`;

flow("device tokens: create_token with scopes and defaults, tokens, acting as the device and revocation on delete through the SDK", async () => {
  const dave = await createTenant(t, `sdk-device-tokens-${release}`);
  // Creating a device's tokens takes an org owner or admin.
  ok(await t.admin.put(`/v1/orgs/id/${dave.orgId}/users/id/${encodeURIComponent(dave.userId)}`, { add_roles: ["admin"] }));
  const memberId = `member-${dave.orgId}@example.com`;
  ok(await t.admin.post("/v1/users", { user_id: memberId, org_id: dave.orgId }));
  const member = ok(await t.admin.post("/v1/tokens", { name: "member", expiry_days: 1 }, { "X-Service-User-Id": memberId }));
  const deviceId = "sdk/tokened robot";

  const result = await run("device_tokens", DEVICE_TOKENS, { device_id: deviceId, member_token: member.secret }, dave);

  const [deviceUser] = result.token;
  expect(deviceUser).toMatch(/^device:dv_/);
  expect(result.token).toEqual([deviceUser, `${dave.orgId}_${deviceId}`, "uploads", ["datasets.create", "files.import", "files.upload"]]);
  expect(result.default).toEqual([`${dave.orgId}_${deviceId}`, 366]);
  expect(result.me).toEqual([deviceUser, true]);
  expect(result.dataset).toEqual([dave.orgId, deviceUser]);
  expect(result.listed).toBe(true);
  expect(result.member_create).toBe("RobotoUnauthorizedException");
  expect(result.after_delete).toBe("RobotoUnauthorizedException");
});
