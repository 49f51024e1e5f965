import { createDataset, createTenant, startWithTenants, waitFor, type ApiResponse, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { perRelease, sdkWorkspace, type SdkWorkspace } from "./sdk-fixtures";

// The legacy scheduled-trigger routes (routes.md section 3, sdk-0.62-routes.md row 11) over the
// 0.62 model: a scheduled trigger is stored as a schedule trigger with one action target, so the v2
// routes and the scheduler see it, and reads back as the ScheduledTriggerRecord. Then the org's
// active-trigger cap (row 5), here 6, on every route that creates or enables a trigger, including
// two enables racing for the last slot. Last, the SDK's ScheduledTrigger class on both releases.

const LIMIT = 6;
let now = new Date("2026-04-06T10:00:30Z");
let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"], { compute: { activeTriggerLimit: LIMIT, scheduler: { clock: () => now, intervalMs: 50 } } });
  for (const tenant of [alice, bob]) ok(await tenant.client.post("/v1/actions", { name: "nightly", uri: "registry.example.com/nightly:1", parameters: [{ name: "mode", required: false }] }));
});
afterAll(() => t?.close());

function ok(res: ApiResponse): any {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined });
  return res.body.data;
}

function refused(res: ApiResponse, status: number, message: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.body.error.message).toMatch(message);
}

const scheduled = (tenant: TestTenant, body: Record<string, unknown>) => tenant.client.post("/v1/triggers/scheduled", { action_name: "nightly", schedule: "0 2 * * *", enabled: true, ...body });

test("create answers the ScheduledTriggerRecord, and the trigger is a 0.62 schedule trigger with one action target", async () => {
  // Outputs go to a dataset of the org: the trigger's target is checked like invoke_action's.
  const target = await createDataset(alice.client, "nightly-outputs");
  const body = {
    name: "nightly-report",
    parameter_values: { mode: "full" },
    compute_requirement_overrides: { vCPU: 1024, memory: 2048 },
    container_parameter_overrides: { command: ["run"], env_vars: { A: "1" } },
    invocation_input: { files: { query: "path LIKE '%.csv'" } },
    invocation_upload_destination: { destination_type: "Dataset", destination_id: target },
    timeout: 45,
    action_owner_id: null,
  };
  const record = ok(await scheduled(alice, body));
  expect(record).toMatchObject({
    name: "nightly-report",
    org_id: alice.orgId,
    action: { name: "nightly", owner: alice.orgId },
    schedule: "0 2 * * *",
    enabled: true,
    next_occurrence: "2026-04-07T02:00:00.000Z",
    parameter_values: { mode: "full" },
    compute_requirement_overrides: { vCPU: 1024, memory: 2048 },
    container_parameter_overrides: { command: ["run"], env_vars: { A: "1" } },
    invocation_input: { files: { query: "path LIKE '%.csv'" } },
    invocation_upload_destination: { destination_type: "Dataset", destination_id: target },
    timeout: 45,
    created_by: alice.userId,
    modified_by: alice.userId,
  });
  expect(record.trigger_id).toMatch(/^tr_/);
  expect(ok(await alice.client.get(`/v1/triggers/scheduled/nightly-report`))).toEqual(record);
  expect(ok(await alice.client.get(`/v1/triggers/scheduled/id/${record.trigger_id}`))).toEqual(record);
  const v2 = ok(await alice.client.get(`/v1/triggers/id/${record.trigger_id}`));
  expect(v2).toMatchObject({ engine: "v2", fires_on: { type: "schedule", cron: "0 2 * * *" } });
  expect(v2.targets).toHaveLength(1);
  expect(v2.targets[0]).toMatchObject({ type: "invoke_action", target_id: "action", action: { name: "nightly" }, parameter_values: { mode: "full" }, timeout: 45 });
  ok(await alice.client.delete(`/v1/triggers/scheduled/id/${record.trigger_id}`));
});

test("the scheduler fires it: an invocation of its action with its parameter values and input", async () => {
  const record = ok(await scheduled(alice, { name: "every-minute", schedule: "* * * * *", parameter_values: { mode: "quick" }, invocation_input: { files: { query: "path = 'a'" } } }));
  expect(record.next_occurrence).toBe("2026-04-06T10:01:00.000Z");
  now = new Date("2026-04-06T10:01:00.200Z");
  const dispatch = await waitFor("the tick's dispatch", async () => {
    const items: any[] = ok(await alice.client.get(`/v1/triggers/id/${record.trigger_id}/dispatches`)).items;
    return items.find((d) => d.status !== "claimed");
  });
  expect(dispatch).toMatchObject({ status: "dispatched", event_type: "schedule.fired", target_id: "action" });
  const invocation = ok(await alice.client.get(`/v1/actions/invocations/${dispatch.result_ref}`));
  expect(invocation).toMatchObject({ parameter_values: { mode: "quick" }, rich_input_data: { files: { query: "path = 'a'" } }, provenance: { source: { source_type: "Trigger", source_id: record.trigger_id } } });
  expect(ok(await alice.client.get(`/v1/triggers/scheduled/id/${record.trigger_id}`)).next_occurrence).toBe("2026-04-06T10:02:00.000Z");
  // ScheduledTrigger.get_evaluations: the dispatches as the legacy evaluation records.
  const evaluations = ok(await alice.client.get("/v1/triggers/every-minute/evaluations?limit=100&trigger_type=scheduled"));
  expect(evaluations.items).toEqual([expect.objectContaining({ trigger_id: record.trigger_id, status: "evaluated", outcome: "invoked_action" })]);
  refused(await alice.client.get("/v1/triggers/every-minute/evaluations?trigger_type=cron"), 400, /^trigger_type: /);
  refused(await bob.client.get("/v1/triggers/every-minute/evaluations?trigger_type=scheduled"), 404, /scheduled trigger/);
  ok(await alice.client.delete(`/v1/triggers/scheduled/id/${record.trigger_id}`));
});

test("update edits what it names: a new schedule recounts next_occurrence, null clears, disabling drops next_occurrence", async () => {
  const { trigger_id } = ok(await scheduled(alice, { name: "edited", parameter_values: { mode: "a" }, timeout: 10 }));
  const path = `/v1/triggers/scheduled/id/${trigger_id}`;
  const edited = ok(await alice.client.put(path, { schedule: "30 * * * *", parameter_values: null, timeout: null }));
  expect(edited).toMatchObject({ schedule: "30 * * * *", parameter_values: {}, next_occurrence: expect.stringMatching(/:30:00\.000Z$/), enabled: true });
  expect(edited.timeout ?? null).toBeNull();
  const disabled = ok(await alice.client.put(path, { enabled: false }));
  expect(disabled).toMatchObject({ enabled: false, schedule: "30 * * * *" });
  expect(disabled.next_occurrence ?? null).toBeNull();
  expect(ok(await alice.client.get(path))).toEqual(disabled);
  expect(ok(await alice.client.put(path, { enabled: true })).next_occurrence).toEqual(edited.next_occurrence);
  // Two edits of different fields at once: each is rebuilt from the row as locked, so both stay.
  const both = await Promise.all([alice.client.put(path, { parameter_values: { mode: "c" } }), alice.client.put(path, { timeout: 16 })]);
  both.forEach(ok);
  expect(ok(await alice.client.get(path))).toMatchObject({ parameter_values: { mode: "c" }, timeout: 16 });
  refused(await alice.client.put(path, { action_name: "missing" }), 404, /missing/);
  expect(ok(await alice.client.get(path)).action.name).toBe("nightly");
  ok(await alice.client.delete(path));
  refused(await alice.client.get(path), 404, /scheduled trigger/);
  refused(await alice.client.get(`/v1/triggers/id/${trigger_id}`), 404, /trigger/);
});

test("bad input is a 400 naming the field, and nothing is written", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ name: "bad-cron", schedule: "every day" }, /^schedule: /],
    [{ name: "bad-cron-field", schedule: "61 * * * *" }, /^schedule: /],
    [{ name: "no-action", action_name: "" }, /action_name/],
    [{ name: "bad name!" }, /^name: /],
    [{ name: "bad-timeout", timeout: 100_000 }, /^timeout: /],
    [{ name: "bad-params", parameter_values: { nope: 1 } }, /^parameter_values/],
    [{ name: "bad-destination", invocation_upload_destination: { destination_type: "S3" } }, /^invocation_upload_destination\.destination_type: /],
    [{ name: "bad-input", invocation_input: "files" }, /^invocation_input: /],
    [{ name: "bad-enabled", enabled: "yes" }, /enabled/],
  ];
  for (const [body, message] of cases) refused(await scheduled(alice, body), 400, message);
  refused(await alice.client.post("/v1/triggers/scheduled", { name: "no-schedule", action_name: "nightly" }), 400, /^schedule: /);
  refused(await scheduled(alice, { name: "unknown-action", action_name: "absent" }), 404, /absent/);
  const { trigger_id } = ok(await scheduled(alice, { name: "kept" }));
  refused(await scheduled(alice, { name: "kept" }), 409, /kept/);
  const path = `/v1/triggers/scheduled/id/${trigger_id}`;
  const before = ok(await alice.client.get(path));
  refused(await alice.client.put(path, { schedule: "not cron" }), 400, /^schedule: /);
  refused(await alice.client.put(path, { enabled: "yes" }), 400, /^enabled: /);
  refused(await alice.client.put(path, { compute_requirement_overrides: "big" }), 400, /^compute_requirement_overrides: /);
  expect(ok(await alice.client.get(path))).toEqual(before);
  const names = (ok(await alice.client.get("/v1/triggers")).items as { name: string }[]).map((tr) => tr.name);
  expect(names.filter((n) => cases.some(([body]) => body.name === n))).toEqual([]);
  ok(await alice.client.delete(path));
});

test("a trigger of another shape has no scheduled form: an event trigger is not found on these routes", async () => {
  const event = ok(
    await alice.client.post("/v1/triggers", {
      name: "on-upload",
      fires_on: { type: "events", events: ["dataset.upload_completed"], once_per: "dataset" },
      targets: [{ type: "invoke_action", target_id: "run", action: { name: "nightly" } }],
      enabled: false,
    }),
  );
  refused(await alice.client.get(`/v1/triggers/scheduled/id/${event.trigger_id}`), 404, /scheduled trigger/);
  refused(await alice.client.get("/v1/triggers/scheduled/on-upload"), 404, /scheduled trigger/);
  refused(await alice.client.delete(`/v1/triggers/scheduled/id/${event.trigger_id}`), 404, /scheduled trigger/);
  ok(await alice.client.get(`/v1/triggers/id/${event.trigger_id}`));
  ok(await alice.client.delete(`/v1/triggers/id/${event.trigger_id}`));
});

test("another org's caller sees nothing and changes nothing", async () => {
  const record = ok(await scheduled(alice, { name: "private" }));
  const path = `/v1/triggers/scheduled/id/${record.trigger_id}`;
  refused(await bob.client.get(path), 404, /scheduled trigger/);
  refused(await bob.client.get("/v1/triggers/scheduled/private"), 404, /scheduled trigger/);
  refused(await bob.client.put(path, { enabled: false }), 404, /scheduled trigger/);
  refused(await bob.client.delete(path), 404, /scheduled trigger/);
  expect([401, 403, 404]).toContain((await bob.client.get(path, { "X-Roboto-Org-Id": alice.orgId })).status);
  expect(ok(await alice.client.get(path))).toEqual(record);
  ok(await alice.client.delete(path));
});

describe("the org's active-trigger cap", () => {
  let carol: TestTenant;
  beforeAll(async () => {
    carol = await createTenant(t, "carol");
    ok(await carol.client.post("/v1/actions", { name: "nightly", uri: "registry.example.com/nightly:1" }));
  });

  test("creating or enabling past it is a 403 naming the limit and the count, on every route; rule-managed triggers are not counted", async () => {
    for (let i = 0; i < LIMIT - 2; i++) ok(await scheduled(carol, { name: `active-${i}` }));
    ok(await carol.client.post("/v1/triggers", { name: "legacy", action_name: "nightly", for_each: "dataset", required_inputs: ["*.bag"] }, { "X-Roboto-Api-Version": "2026-08-10" }));
    const v2 = { fires_on: { type: "schedule", cron: "0 * * * *" }, targets: [{ type: "invoke_action", target_id: "a", action: { name: "nightly" } }] };
    ok(await carol.client.post("/v1/triggers", { name: "v2-last", ...v2 }));
    // An ingestion rule's trigger follows its rule and is not counted.
    ok(await carol.client.post("/v1/ingestion-rules", { name: "rule", include_patterns: ["*.never"], invocation: { action: { name: "nightly" } } }));
    const message = new RegExp(`^enabled: org .* has ${LIMIT} enabled triggers, its limit of active triggers is ${LIMIT}`);
    refused(await scheduled(carol, { name: "one-too-many" }), 403, message);
    refused(await carol.client.post("/v1/triggers", { name: "v2-too-many", ...v2 }), 403, message);
    refused(await carol.client.post("/v1/triggers", { name: "legacy-too-many", action_name: "nightly", for_each: "dataset", required_inputs: ["*.bag"] }, { "X-Roboto-Api-Version": "2026-08-10" }), 403, message);
    // Created disabled, it is not active; enabling it is refused on each route.
    const off = ok(await scheduled(carol, { name: "off", enabled: false }));
    refused(await carol.client.put(`/v1/triggers/scheduled/id/${off.trigger_id}`, { enabled: true }), 403, message);
    refused(await carol.client.put(`/v1/triggers/id/${off.trigger_id}`, { enabled: true }), 403, message);
    // A slot freed is taken by another trigger; the one that freed it then finds none.
    ok(await carol.client.put("/v1/triggers/legacy", { enabled: false }, { "X-Roboto-Api-Version": "2026-08-10" }));
    ok(await carol.client.put(`/v1/triggers/scheduled/id/${off.trigger_id}`, { enabled: true }));
    refused(await carol.client.put("/v1/triggers/legacy", { enabled: true }, { "X-Roboto-Api-Version": "2026-08-10" }), 403, message);
    const names = (ok(await carol.client.get("/v1/triggers")).items as { name: string; enabled: boolean }[]).filter((tr) => tr.enabled).map((tr) => tr.name);
    expect(names).not.toContain("one-too-many");
    expect(names).not.toContain("v2-too-many");
    expect(names).not.toContain("legacy-too-many");
  });

  test("two enables racing for the last slot: exactly one wins", async () => {
    // Free one slot, then race two disabled triggers for it.
    ok(await carol.client.put(`/v1/triggers/scheduled/id/${ok(await carol.client.get("/v1/triggers/scheduled/active-0")).trigger_id}`, { enabled: false }));
    const racers = [ok(await scheduled(carol, { name: "racer-1", enabled: false })), ok(await scheduled(carol, { name: "racer-2", enabled: false }))];
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([
        carol.client.put(`/v1/triggers/scheduled/id/${racers[0].trigger_id}`, { enabled: true }),
        carol.client.put(`/v1/triggers/id/${racers[1].trigger_id}`, { enabled: true }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 403]);
      const enabled = (ok(await carol.client.get("/v1/triggers")).items as { enabled: boolean; managed_by: unknown }[]).filter((tr) => tr.enabled && tr.managed_by === null);
      expect(enabled).toHaveLength(LIMIT);
      for (const racer of racers) ok(await carol.client.put(`/v1/triggers/id/${racer.trigger_id}`, { enabled: false }));
    }
  });
});

describe("the SDK's ScheduledTrigger", () => {
  let tenant: TestTenant;
  let ws: SdkWorkspace;
  const flow = perRelease(
    async (release) => {
      const [user] = [await createTenant(t, `sdk-${release}`)];
      ok(await user.client.post("/v1/actions", { name: "nightly", uri: "registry.example.com/nightly:1", parameters: [{ name: "mode", required: false }] }));
      return { user, ws: await sdkWorkspace(t, release) };
    },
    (context) => ({ user: tenant, ws } = context),
  );
  afterAll(async () => ws?.close());

  flow("create, from_name, from_id, update, disable, enable and delete", async () => {
    const result = await ws.sdk(
      "scheduled-trigger",
      `
import json, sys, warnings
warnings.simplefilter("ignore", DeprecationWarning)
from roboto.domain.actions import ScheduledTrigger, TriggerSchedule, InvocationInput
from roboto.exceptions import RobotoNotFoundException
created = ScheduledTrigger.create(name="sdk-hourly", schedule=TriggerSchedule.hourly(), action_name="nightly", parameter_values={"mode": "sdk"}, invocation_input=InvocationInput.file_query("path LIKE '%.csv'"), timeout=20)
by_name = ScheduledTrigger.from_name("sdk-hourly")
by_id = ScheduledTrigger.from_id(created.trigger_id)
# Each state is read when reached: update(), enable() and disable() change the object they are called on.
read = {"same": created == by_name == by_id, "by_name": by_name.record.model_dump(mode="json"), "by_id": by_id.record.model_dump(mode="json")}
updated = by_id.update(schedule="15 3 * * *", parameter_values=None)
updated_record = updated.record.model_dump(mode="json")
updated.disable()
disabled = ScheduledTrigger.from_id(created.trigger_id)
disabled_state = [disabled.enabled, disabled.record.next_occurrence is None]
enabled_now = disabled.enable()
again = ScheduledTrigger.from_id(created.trigger_id)
again.delete()
try:
    ScheduledTrigger.from_id(created.trigger_id)
    gone = False
except RobotoNotFoundException:
    gone = True
print(json.dumps({
    "created": created.record.model_dump(mode="json"),
    **read,
    "updated": updated_record,
    "disabled": disabled_state,
    "enabled": [enabled_now, again.enabled, again.record.next_occurrence is not None],
    "gone": gone,
}))
`,
      {},
      tenant.token,
    );
    expect(result.created).toMatchObject({ name: "sdk-hourly", schedule: "0 * * * *", enabled: true, parameter_values: { mode: "sdk" }, timeout: 20, action: { name: "nightly", owner: tenant.orgId } });
    expect(result.created.invocation_input.files).toMatchObject({ query: "path LIKE '%.csv'" });
    expect(result.created.next_occurrence).toBe("2026-04-06T11:00:00Z");
    expect(result.by_name).toEqual(result.created);
    expect(result.by_id).toEqual(result.created);
    expect(result.same).toBe(true);
    expect(result.updated).toMatchObject({ schedule: "15 3 * * *", parameter_values: {} });
    expect(result.disabled).toEqual([false, true]);
    expect(result.enabled).toEqual([true, true, true]);
    expect(result.gone).toBe(true);
  });

  flow("get_evaluations lists what the scheduler fired", async () => {
    const script = (body: string) => ws.sdk("scheduled-evaluations", `import json, sys, warnings\nwarnings.simplefilter("ignore", DeprecationWarning)\nfrom roboto.domain.actions import ScheduledTrigger\n${body}`, {}, tenant.token);
    const { trigger_id } = await script(`t = ScheduledTrigger.create(name="sdk-minutely", schedule="* * * * *", action_name="nightly")\nprint(json.dumps({"trigger_id": t.trigger_id}))`);
    now = new Date(now.getTime() + 60_000);
    await waitFor("the tick's dispatch", async () => {
      const items: any[] = ok(await tenant.client.get(`/v1/triggers/id/${trigger_id}/dispatches`)).items;
      return items.some((d) => d.status === "dispatched") ? true : undefined;
    });
    const evaluations = await script(`print(json.dumps([e.model_dump(mode="json") for e in ScheduledTrigger.from_name("sdk-minutely").get_evaluations()]))`);
    expect(evaluations).toEqual([expect.objectContaining({ trigger_id, status: "evaluated", outcome: "invoked_action" })]);
    ok(await tenant.client.put(`/v1/triggers/id/${trigger_id}`, { enabled: false }));
  });
});
