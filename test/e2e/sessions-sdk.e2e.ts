import { startWithTenants, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { sdkWorkspace, type SdkRelease, type SdkWorkspace } from "./sdk-fixtures";

// Sessions and events through the public Python client SDK, both releases (the pinned 0.53.0 and
// the newest 0.62.0), each in an org of its own: events created on a dataset and a file, listed by
// association and by dataset, edited and deleted in a batch; sessions created on a device, edited,
// listed by org and device; with 0.62 also device sessions declared in a batch with their files,
// files added and removed (batch replies), completion, ingestion status and create-if-not-exists.
// Every effect is read back through the gateway. Not covered here: Event.get_data (it reads topic
// data, which needs topics) and 0.53's Session.add_files, which expects the session as the reply
// of the batch the newest API version answers (an API-version translation, see the README).

let t: TestPlatform;
const tenants = {} as Record<SdkRelease, TestTenant>;
const workspaces = {} as Record<SdkRelease, SdkWorkspace>;

beforeAll(async () => {
  const [platform, pinned, newest] = await startWithTenants(["sdk-sessions-pinned", "sdk-sessions-newest"]);
  t = platform;
  Object.assign(tenants, { pinned, newest });
  workspaces.pinned = await sdkWorkspace(t, "pinned");
  workspaces.newest = await sdkWorkspace(t, "newest");
});
afterAll(async () => {
  await t?.close();
  await workspaces.pinned?.close();
  await workspaces.newest?.close();
});

const EVENTS = `
import json, pathlib, sys
from roboto import Dataset, RobotoClient
from roboto.association import Association
from roboto.domain.events import Event

args = json.loads(sys.argv[1])
client = RobotoClient.from_env()
dataset = Dataset.create(name="sdk-events", roboto_client=client)
dataset.upload_file(pathlib.Path(args["file"]), file_destination_path="run.mcap")
file = dataset.get_file_by_path("run.mcap")

on_both = Event.create(name="spike", start_time=1_700_000_000_000_000_000, end_time=1_700_000_000_500_000_000,
                       dataset_ids=[dataset.dataset_id], file_ids=[file.file_id], metadata={"cpu": 0.9}, tags=["hot"], roboto_client=client)
on_file = Event.create(name="blip", start_time=5, file_ids=[file.file_id], roboto_client=client)
on_dataset = Event.create(name="note", start_time=7, end_time=9, dataset_ids=[dataset.dataset_id], roboto_client=client)

on_both.set_color("red")
on_both.put_metadata({"gpu": 0.5})
on_both.set_name("cpu spike")
again = Event.from_id(on_both.event_id, roboto_client=client)

result = {
    "dataset_id": dataset.dataset_id,
    "file_id": file.file_id,
    "event": again.record.model_dump(mode="json"),
    "dataset_ids": again.dataset_ids(),
    "file_ids": again.file_ids(strict_associations=True),
    "by_file": sorted(e.event_id for e in Event.get_by_file(file.file_id, roboto_client=client)),
    "by_dataset": sorted(e.event_id for e in Event.get_by_dataset(dataset.dataset_id, roboto_client=client)),
    "by_dataset_strict": sorted(e.event_id for e in Event.get_by_dataset(dataset.dataset_id, strict_associations=True, roboto_client=client)),
    "ids": {"on_both": on_both.event_id, "on_file": on_file.event_id, "on_dataset": on_dataset.event_id},
}
Event.delete_many([on_file.event_id, on_dataset.event_id], roboto_client=client)
result["after_delete"] = sorted(e.event_id for e in Event.get_by_dataset(dataset.dataset_id, roboto_client=client))
print(json.dumps(result))
`;

const SESSIONS = `
import json, sys
from roboto import RobotoClient
from roboto.domain.devices import Device
from roboto.experimental.sessions import Session

args = json.loads(sys.argv[1])
client = RobotoClient.from_env()
device = Device.create(device_id=args["device_id"], roboto_client=client)
session = device.create_session(name="drive-1", description="north loop", metadata={"site": "north"}, tags=["field"])
session.put_tags(["checked"])
session.put_metadata({"weather": "rain"})
session.update(description="north loop, rainy")
other = Session.create(name="bench", roboto_client=client)
other.attach_to_device(device.device_id)
print(json.dumps({
    "session": Session.from_id(session.session_id, roboto_client=client).record.model_dump(mode="json"),
    "devices": list(session.list_devices()),
    "of_device": sorted(s.session_id for s in device.list_sessions()),
    "of_org": sorted(s.session_id for s in Session.for_org(roboto_client=client)),
    "other": other.session_id,
}))
other.detach_from_device(device.device_id)
other.delete()
`;

const NEWEST_SESSIONS = `
import json, pathlib, sys
from roboto import Dataset, RobotoClient
from roboto.domain.devices import Device
from roboto.experimental.sessions import CompletionPolicy, Session, SessionDeclaration, SessionFile

args = json.loads(sys.argv[1])
client = RobotoClient.from_env()
dataset = Dataset.create(name="sdk-sessions", roboto_client=client)
for name in ("a.mcap", "b.mcap"):
    dataset.upload_file(pathlib.Path(args["file"]), file_destination_path=name)
a, b = dataset.get_file_by_path("a.mcap"), dataset.get_file_by_path("b.mcap")
device = Device.create(device_id=args["device_id"], roboto_client=client)

batch = device.create_sessions([
    SessionDeclaration(name="morning", anchor_ns=1_700_000_000_000_000_000, completion_policy=CompletionPolicy(inactivity_minutes=30),
                       files=[SessionFile(file_id=a.file_id, min_file_timestamp_ns=0, max_file_timestamp_ns=1_000)]),
    SessionDeclaration(name="broken", files=[SessionFile(file_id="fl_missing")]),
])
morning = batch.responses[0].data
failed = [str(e) for e in batch.failed]
resent = device.create_session(name="morning")

added = morning.add_files([SessionFile(file_id=b.file_id, anchor_ns=2_000, min_file_timestamp_ns=1, max_file_timestamp_ns=5)])
windows = {f.file_id: [f.min_wall_clock_timestamp_ns, f.max_wall_clock_timestamp_ns] for f in morning.list_files()}
removed = morning.remove_files([b.file_id])
morning.refresh()
bounds = [morning.record.min_timestamp_ns, morning.record.max_timestamp_ns]
completed = morning.complete()
ingestion = completed.ingestion_status()
summaries = Session.ingestion_summaries([morning.session_id], roboto_client=client)
found = Session.create_if_not_exists(match_roboql_query="name = 'morning'", name="never", roboto_client=client)
print(json.dumps({
    "morning": morning.session_id,
    "a": a.file_id,
    "b": b.file_id,
    "failed": failed,
    "resent": resent.session_id,
    "added": [f.file_id for f in added.succeeded],
    "windows": windows,
    "removed": removed.succeeded,
    "bounds": bounds,
    "status": completed.record.status,
    "ingestion_state": ingestion.state,
    "summaries": [s.session_id for s in summaries],
    "found": found.session_id,
    "of_dataset": [s.session_id for s in Session.for_dataset(dataset.dataset_id, roboto_client=client)],
}))
`;

describe.each(["pinned", "newest"] as const)("roboto %s", (release) => {
  const run = (name: string, script: string, args: Record<string, unknown>) => workspaces[release].sdk(`${name}-${release}`, script, args, tenants[release].token);
  const client = () => tenants[release].client;

  test("events: create on a dataset and a file, list by association and by dataset, edit, delete in a batch", async () => {
    const dir = await workspaces[release].directoryWith(`events-${release}`, { "run.mcap": "not really mcap" });
    const out = await run("events", EVENTS, { file: `${dir}/run.mcap` });
    const { on_both, on_file, on_dataset } = out.ids;
    expect(out.event).toMatchObject({ name: "cpu spike", start_time: 1_700_000_000_000_000_000, end_time: 1_700_000_000_500_000_000, metadata: { cpu: 0.9, gpu: 0.5 }, tags: ["hot"], display_options: { color: "red" } });
    expect(out.dataset_ids).toEqual([out.dataset_id]);
    expect(out.file_ids).toEqual([out.file_id]);
    expect(out.by_file).toEqual([on_both, on_file].sort());
    expect(out.by_dataset).toEqual([on_both, on_file, on_dataset].sort());
    expect(out.by_dataset_strict).toEqual([on_both, on_dataset].sort());
    expect(out.after_delete).toEqual([on_both]);
    const read = (await client().get(`/v1/events/id/${on_both}`)).body.data;
    expect(read).toMatchObject({ name: "cpu spike", org_id: tenants[release].orgId, display_options: { color: "red" } });
    expect((await client().get(`/v1/events/id/${on_file}`)).status).toBe(404);
  });

  test("sessions: created on a device, edited, listed by org and device, detached and deleted", async () => {
    const out = await run("sessions", SESSIONS, { device_id: `robot-${release}` });
    expect(out.session).toMatchObject({ name: "drive-1", description: "north loop, rainy", metadata: { site: "north", weather: "rain" }, tags: ["field", "checked"], org_id: tenants[release].orgId });
    expect(out.devices).toEqual([`robot-${release}`]);
    expect(out.of_device).toEqual([out.session.session_id, out.other].sort());
    expect(out.of_org).toContain(out.session.session_id);
    expect((await client().get(`/v1/sessions/id/${out.session.session_id}`)).body.data).toMatchObject({ name: "drive-1", status: "in_progress" });
    expect((await client().get(`/v1/sessions/id/${out.other}`)).status).toBe(404);
  });

  if (release === "newest") {
    test("device sessions in a batch, files added and removed, completion, ingestion and create-if-not-exists", async () => {
      const dir = await workspaces[release].directoryWith("newest-sessions", { "run.mcap": "bytes" });
      const out = await run("newest-sessions", NEWEST_SESSIONS, { file: `${dir}/run.mcap`, device_id: "robot-batch" });
      // The element's envelope carries the HTTP status as an integer error_code (the spec's envelope), which
      // this SDK reads as a refusal of a code it does not name: still failed, with the message.
      expect(out.failed).toEqual([expect.stringContaining("file 'fl_missing' not found")]);
      expect(out.resent).toBe(out.morning);
      expect(out.added).toEqual([out.b]);
      expect(out.windows).toEqual({ [out.a]: [1_700_000_000_000_000_000, 1_700_000_000_000_001_000], [out.b]: [2_001, 2_005] });
      expect(out.removed).toEqual([out.b]);
      expect(out.bounds).toEqual([1_700_000_000_000_000_000, 1_700_000_000_000_001_000]);
      expect(out).toMatchObject({ status: "complete", ingestion_state: "ingested", summaries: [out.morning], found: out.morning, of_dataset: [out.morning] });
      expect((await client().get(`/v1/sessions/id/${out.morning}`)).body.data).toMatchObject({ status: "complete", completion_policy: { inactivity_minutes: 30 }, ingestion_count: 1 });
    });
  }
});
