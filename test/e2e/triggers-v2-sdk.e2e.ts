import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { requiredEnv, startHttpSink, startWithTenants, waitFor, type HttpSink, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { sdkWorkspace, type SdkWorkspace } from "./sdk-fixtures";

// The 0.62 trigger model as the newest public client (roboto 0.62.0) drives it: Trigger.create with
// event shorthands and a schedule, fired by an upload and by a dataset metadata change, a scheduled
// trigger fired when the test moves the scheduler's clock, dispatches listed, dry runs, samples,
// update and delete, and the CLI's `roboto triggers list/get`.

let now = new Date("2026-03-02T08:00:30Z");
let t: TestPlatform;
let alice: TestTenant;
let sink: HttpSink;
let ws: SdkWorkspace;

beforeAll(async () => {
  sink = await startHttpSink();
  [t, alice] = await startWithTenants(["alice"], { compute: { slackWebhooks: { C_SDK: sink.url }, scheduler: { clock: () => now, intervalMs: 50 } } });
  ws = await sdkWorkspace(t, "newest");
  const action = await alice.client.post("/v1/actions", { name: "process", uri: "registry.example.com/process:1" });
  expect(action.status).toBe(200);
});
afterAll(async () => {
  await ws?.close();
  await t?.close();
  await sink?.close();
});

const PRELUDE = `
import json, sys, datetime
from roboto import Dataset
from roboto.domain.actions import ActionReference
from roboto.domain.platform_events import OncePer, PlatformEventType
from roboto.domain.triggers import InvokeActionTarget, SendSlackMessageTarget, Trigger
args = json.loads(sys.argv[1])
`;

const sdk = (name: string, body: string, args: Record<string, unknown> = {}) => ws.sdk(name, PRELUDE + body, args, alice.token);

async function dispatchesOf(triggerId: string, count: number): Promise<any[]> {
  return waitFor(`${count} dispatches`, async () => {
    const res = await alice.client.get(`/v1/triggers/id/${triggerId}/dispatches`);
    const items: any[] = res.body.data?.items ?? [];
    return items.length >= count && items.every((d) => d.status !== "claimed") ? items : undefined;
  });
}

test("an upload fires an action target; the SDK lists its dispatches and dry-runs it", async () => {
  const created = await sdk(
    "upload-trigger",
    `
trigger = Trigger.create(
    name="on-bags",
    targets=[InvokeActionTarget(target_id="run", action=ActionReference(name="process"), required_inputs=["**/*.bag"])],
    events=[PlatformEventType.FileUploaded],
    once_per=OncePer.File,
)
dataset = Dataset.create(name="sdk-upload")
open("run.bag", "w").write("bag")
dataset.upload_file(__import__("pathlib").Path("run.bag"))
print(json.dumps({"trigger_id": trigger.trigger_id, "engine": trigger.engine, "events": trigger.events, "dataset_id": dataset.dataset_id}))
`,
  );
  expect(created).toMatchObject({ engine: "v2", events: ["file.uploaded"] });
  await dispatchesOf(created.trigger_id, 1);
  const seen = await sdk(
    "upload-dispatches",
    `
trigger = Trigger.from_id(args["trigger_id"])
dispatches = list(trigger.dispatches())
trace = trigger.dry_run(dataset_id=args["dataset_id"], event_type=PlatformEventType.FileUploaded)
print(json.dumps({"dispatches": [d.model_dump(mode="json") for d in dispatches], "would_fire": trace.would_fire, "gates": [g.gate.value for g in trace.gates]}))
`,
    created,
  );
  expect(seen.dispatches).toHaveLength(1);
  expect(seen.dispatches[0]).toMatchObject({ trigger_id: created.trigger_id, target_type: "invoke_action", event_type: "file.uploaded", status: "dispatched", dataset_id: created.dataset_id });
  expect(seen.dispatches[0].result_ref).toMatch(/^iv_/);
  expect(seen.gates).toEqual(["subscribed", "enabled", "condition", "target_prefilter", "already_fired"]);
});

test("a dataset metadata change fires a Slack target when its condition holds", async () => {
  const created = await sdk(
    "metadata-trigger",
    `
from roboto.query import Comparator, Condition
trigger = Trigger.create(
    name="on-robot",
    targets=[SendSlackMessageTarget(target_id="post", channel_id="C_SDK", text="{{dataset.dataset_id}} now on {{dataset.metadata.robot}}")],
    events=[PlatformEventType.DatasetMetadataUpdated],
    once_per=OncePer.Occurrence,
    condition=Condition(field="dataset.metadata.robot", comparator=Comparator.Equals, value="rover-7"),
)
dataset = Dataset.create(name="sdk-metadata")
dataset.put_metadata({"robot": "rover-7"})
print(json.dumps({"trigger_id": trigger.trigger_id, "dataset_id": dataset.dataset_id}))
`,
  );
  const [dispatch] = await dispatchesOf(created.trigger_id, 1);
  expect(dispatch).toMatchObject({ event_type: "dataset.metadata_updated", status: "dispatched", target_type: "send_slack_message" });
  expect(sink.received).toContainEqual({ channel: "C_SDK", text: `${created.dataset_id} now on rover-7` });
});

test("a scheduled trigger fires when the scheduler's clock reaches its tick", async () => {
  const created = await sdk(
    "schedule-trigger",
    `
trigger = Trigger.create(name="every-hour", targets=[SendSlackMessageTarget(target_id="post", channel_id="C_SDK", text="hourly {{schedule.scheduled_for}}")], schedule="0 * * * *")
trace = trigger.dry_run()
print(json.dumps({"trigger_id": trigger.trigger_id, "schedule": trigger.schedule, "once_per": trigger.once_per.value, "would_fire": trace.would_fire, "event_type": trace.event_type.value}))
`,
  );
  expect(created).toMatchObject({ schedule: "0 * * * *", once_per: "occurrence", would_fire: true, event_type: "schedule.fired" });
  now = new Date("2026-03-02T09:00:05Z");
  await dispatchesOf(created.trigger_id, 1);
  const listed = await sdk(
    "schedule-dispatches",
    `print(json.dumps([d.model_dump(mode="json") for d in Trigger.from_name("every-hour").dispatches()]))`,
  );
  expect(listed).toHaveLength(1);
  expect(listed[0]).toMatchObject({ event_type: "schedule.fired", event_id: `${created.trigger_id}@2026-03-02T09:00:00.000Z`, status: "dispatched" });
  expect(sink.received).toContainEqual({ channel: "C_SDK", text: "hourly 2026-03-02T09:00:00.000Z" });
});

test("list, samples, update, delete, and a service user the SDK refuses to send is refused by the server too", async () => {
  const result = await sdk(
    "manage",
    `
from roboto.exceptions import RobotoInvalidRequestException, RobotoNotFoundException
trigger = Trigger.create(name="to-manage", targets=[SendSlackMessageTarget(target_id="p", channel_id="C_SDK", text="x")], schedule="*/15 * * * *")
names = [t.name for t in Trigger.list()]
samples = Trigger.platform_event_samples()
trigger.update(enabled=False, name="managed-renamed")
disabled = Trigger.from_name("managed-renamed").enabled
try:
    Trigger.create(name="bad", targets=[SendSlackMessageTarget(target_id="p", channel_id="C_NONE", text="x")], schedule="* * * * *")
    refused = None
except RobotoInvalidRequestException as exc:
    refused = str(exc)
trigger.delete()
try:
    Trigger.from_id(trigger.trigger_id)
    gone = False
except RobotoNotFoundException:
    gone = True
print(json.dumps({"names": names, "samples": sorted(k.value for k in samples), "disabled": disabled, "refused": refused, "gone": gone}))
`,
  );
  expect(result.names).toEqual(expect.arrayContaining(["to-manage", "every-hour", "on-robot", "on-bags"]));
  expect(result.samples).toHaveLength(12);
  expect(result).toMatchObject({ disabled: false, gone: true });
  expect(result.refused).toMatch(/targets\[0\]\.channel_id/);
  const raw = await alice.client.post("/v1/triggers", { name: "with-user", fires_on: { type: "schedule", cron: "* * * * *" }, targets: [{ type: "send_slack_message", target_id: "p", channel_id: "C_SDK", text: "x" }], service_user_id: alice.userId });
  expect(raw.status).toBe(400);
});

test("the CLI's roboto triggers list and get", async () => {
  const roboto = path.join(path.dirname(requiredEnv("HANGAR_TEST_ROBOTO_NEXT_PYTHON")), "roboto");
  const env = { PATH: process.env.PATH ?? "", HOME: ws.work, ROBOTO_SERVICE_ENDPOINT: t.url, ROBOTO_API_KEY: alice.token };
  // No upgrade check: it would ask PyPI for the newest release.
  const cli = async (...args: string[]) => JSON.parse((await promisify(execFile)(roboto, ["--suppress-upgrade-check", ...args], { env, timeout: 120_000 })).stdout);
  const list = await cli("triggers", "list");
  expect(list.map((r: any) => r.name)).toEqual(expect.arrayContaining(["every-hour", "on-robot", "on-bags"]));
  const got = await cli("triggers", "get", "every-hour");
  expect(got).toMatchObject({ name: "every-hour", engine: "v2", fires_on: { type: "schedule", cron: "0 * * * *" }, enabled: true });
});
