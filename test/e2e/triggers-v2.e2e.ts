import {
  createDataset,
  expectBadRequest,
  startHttpSink,
  startWithTenants,
  uploadFiles,
  waitFor,
  type ApiClient,
  type HttpSink,
  type TestPlatform,
  type TestTenant,
  LEGACY_TRIGGERS,
} from "@hangar/test-harness";

// The 0.62 trigger model (sdk-0.62-routes.md rows 1-9) through the gateway: v2 triggers fired by
// platform events with a condition, once_per de-duplication and action/Slack targets; reads by id
// and name over the same stored triggers as the legacy routes; dispatches, dry runs, samples.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let sink: HttpSink;


beforeAll(async () => {
  sink = await startHttpSink();
  [t, alice, bob] = await startWithTenants(["alice", "bob"], { compute: { slackWebhooks: { C_ALERTS: sink.url } } });
  await ok(alice.client.post("/v1/actions", { name: "process", uri: "registry.example.com/process:1", parameters: [{ name: "who" }] }));
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

async function ok(res: Promise<{ status: number; body: any }>): Promise<any> {
  const answer = await res;
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status: 200, error: undefined });
  return answer.body.data;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

const slackTarget = (text = "hello") => ({ type: "send_slack_message", target_id: "post", channel_id: "C_ALERTS", text });
const actionTarget = (extra: Record<string, unknown> = {}) => ({
  type: "invoke_action",
  target_id: "run",
  action: { name: "process" },
  required_inputs: ["**/*.bag"],
  parameter_values: { who: "{{dataset.name}}" },
  ...extra,
});

function createV2(client: ApiClient, body: Record<string, unknown>) {
  return client.post("/v1/triggers", { name: unique("v2"), targets: [slackTarget()], ...body });
}

const onDatasetChange = { type: "events", events: ["dataset.metadata_updated"], once_per: "occurrence" };

async function dispatchesOf(client: ApiClient, triggerId: string): Promise<any[]> {
  return (await ok(client.get(`/v1/triggers/id/${triggerId}/dispatches`))).items;
}

describe("create and read", () => {
  test("a v2 trigger reads back by id, by name and in the list, in the 0.62 shape", async () => {
    const name = unique("shape");
    const created = await ok(alice.client.post("/v1/triggers", { name, fires_on: onDatasetChange, targets: [slackTarget()], condition: { field: "dataset.metadata.robot", comparator: "EQUALS", value: "r1" } }));
    expect(created).toMatchObject({
      name,
      org_id: alice.orgId,
      enabled: true,
      engine: "v2",
      fires_on: onDatasetChange,
      targets: [slackTarget()],
      condition: { field: "dataset.metadata.robot", comparator: "EQUALS", value: "r1" },
      created_by: alice.userId,
      modified_by: alice.userId,
    });
    expect(created.trigger_id).toMatch(/^tr_/);
    expect(await ok(alice.client.get(`/v1/triggers/id/${created.trigger_id}`))).toEqual(created);
    expect(await ok(alice.client.get(`/v1/triggers/${name}`))).toEqual(created);
    const list = await ok(alice.client.get("/v1/triggers"));
    expect(list.items.map((i: any) => i.trigger_id)).toContain(created.trigger_id);
  });

  test("a legacy trigger is listed and read by id projected with engine v1; legacy queries skip v2 triggers", async () => {
    const legacy = await ok(alice.client.post("/v1/triggers", { name: unique("legacy"), action_name: "process", for_each: "dataset_file", required_inputs: ["*.bag"], parameter_values: { who: "x" } }, LEGACY_TRIGGERS));
    const v2 = await ok(createV2(alice.client, { fires_on: onDatasetChange }));
    const byId = await ok(alice.client.get(`/v1/triggers/id/${legacy.trigger_id}`));
    expect(byId).toMatchObject({
      engine: "v1",
      fires_on: { type: "events", events: ["dataset.upload_completed"], once_per: "file" },
      targets: [{ type: "invoke_action", target_id: "action", action: { name: "process", owner: alice.orgId, digest: null }, required_inputs: ["*.bag"] }],
    });
    const listed = (await ok(alice.client.get("/v1/triggers"))).items.map((i: any) => i.trigger_id);
    expect(listed).toEqual(expect.arrayContaining([legacy.trigger_id, v2.trigger_id]));
    const queried = (await ok(alice.client.post("/v1/triggers/query", {}))).items.map((i: any) => i.trigger_id);
    expect(queried).toContain(legacy.trigger_id);
    expect(queried).not.toContain(v2.trigger_id);
  });

  test("API versions before 2026-08-27 know only legacy triggers: a v2 trigger is a 404 by name and absent from the list; a legacy one reads as before", async () => {
    const before = { "X-Roboto-Api-Version": "2026-08-10" };
    const v2 = await ok(createV2(alice.client, { fires_on: onDatasetChange }));
    const legacy = await ok(alice.client.post("/v1/triggers", { name: unique("legacy"), action_name: "process", for_each: "dataset", required_inputs: ["*.bag"] }, LEGACY_TRIGGERS));
    expect((await alice.client.get(`/v1/triggers/${v2.name}`, before)).status).toBe(404);
    expect(await ok(alice.client.get(`/v1/triggers/${legacy.name}`, before))).toMatchObject({ trigger_id: legacy.trigger_id, name: legacy.name, for_each: "dataset", engine: "v1" });
    const listed = (await ok(alice.client.get("/v1/triggers", before))).items.map((i: any) => i.trigger_id);
    expect(listed).toContain(legacy.trigger_id);
    expect(listed).not.toContain(v2.trigger_id);
    const atChange = { "X-Roboto-Api-Version": "2026-08-27" };
    expect(await ok(alice.client.get(`/v1/triggers/${v2.name}`, atChange))).toMatchObject({ trigger_id: v2.trigger_id, engine: "v2" });
  });

  test("a duplicate name is a 409", async () => {
    const name = unique("dup");
    await ok(createV2(alice.client, { name, fires_on: onDatasetChange }));
    expect((await createV2(alice.client, { name, fires_on: onDatasetChange })).status).toBe(409);
  });

  test("the legacy body still creates a legacy trigger and names its missing fields", async () => {
    expectBadRequest(await alice.client.post("/v1/triggers", { name: unique("l"), for_each: "dataset", required_inputs: ["*"] }, LEGACY_TRIGGERS), "action_name");
    expectBadRequest(await alice.client.post("/v1/triggers", { name: unique("l"), action_name: "process", required_inputs: ["*"] }, LEGACY_TRIGGERS), "for_each");
    expectBadRequest(await alice.client.post("/v1/triggers", { name: unique("l"), action_name: "process", for_each: "dataset" }, LEGACY_TRIGGERS), "required_inputs");
  });
});

describe("bad input is a 400 naming the field, and writes nothing", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["no source", { fires_on: undefined }, "fires_on"],
    ["an unknown source type", { fires_on: { type: "webhook" } }, "fires_on.type"],
    ["no events", { fires_on: { type: "events", events: [], once_per: "occurrence" } }, "fires_on.events"],
    ["an unknown event type", { fires_on: { type: "events", events: ["dataset.exploded"], once_per: "occurrence" } }, "fires_on.events[0]"],
    ["schedule.fired subscribed", { fires_on: { type: "events", events: ["schedule.fired"], once_per: "occurrence" } }, "fires_on.events[0]"],
    ["an unknown once_per", { fires_on: { type: "events", events: ["dataset.created"], once_per: "hourly" } }, "fires_on.once_per"],
    ["a once_per the event does not support", { fires_on: { type: "events", events: ["dataset.created"], once_per: "file" } }, "fires_on.once_per"],
    ["events about different entities", { fires_on: { type: "events", events: ["dataset.created", "file.uploaded"], once_per: "dataset" } }, "fires_on.events"],
    ["a bad cron", { fires_on: { type: "schedule", cron: "61 * * * *" } }, "fires_on.cron"],
    ["a 6-field cron", { fires_on: { type: "schedule", cron: "0 0 * * * *" } }, "fires_on.cron"],
    ["an unknown time zone", { fires_on: { type: "schedule", cron: "0 9 * * *", timezone: "Mars/Olympus" } }, "fires_on.cron"],
    ["no targets", { fires_on: onDatasetChange, targets: [] }, "targets"],
    ["a start_agent target", { fires_on: onDatasetChange, targets: [{ type: "start_agent", target_id: "a", agent_id: "ag_1" }] }, "targets[0].type"],
    ["an unknown target type", { fires_on: onDatasetChange, targets: [{ type: "send_email", target_id: "a" }] }, "targets[0].type"],
    ["a target without an id", { fires_on: onDatasetChange, targets: [{ ...slackTarget(), target_id: "" }] }, "targets[0].target_id"],
    ["duplicate target ids", { fires_on: onDatasetChange, targets: [slackTarget(), slackTarget()] }, "targets[1].target_id"],
    ["an unconfigured Slack channel", { fires_on: onDatasetChange, targets: [{ ...slackTarget(), channel_id: "C_NOPE" }] }, "targets[0].channel_id"],
    ["a Slack target without text", { fires_on: onDatasetChange, targets: [{ ...slackTarget(), text: "" }] }, "targets[0].text"],
    ["an action target without an action", { fires_on: onDatasetChange, targets: [{ type: "invoke_action", target_id: "a" }] }, "targets[0].action"],
    ["required_inputs on a schedule", { fires_on: { type: "schedule", cron: "* * * * *" }, targets: [actionTarget()] }, "targets[0].required_inputs"],
    ["a file event per file without required_inputs", { fires_on: { type: "events", events: ["file.uploaded"], once_per: "file" }, targets: [actionTarget({ required_inputs: [] })] }, "targets[0].required_inputs"],
    ["a bad required_inputs pattern", { fires_on: onDatasetChange, targets: [actionTarget({ required_inputs: ["!neg"] })] }, "targets[0].required_inputs[0]"],
    ["an upload destination of another kind", { fires_on: onDatasetChange, targets: [actionTarget({ upload_destination: { destination_type: "S3", destination_id: "b" } })] }, "targets[0].upload_destination.destination_type"],
    ["an upload destination without a bucket", { fires_on: onDatasetChange, targets: [actionTarget({ upload_destination: { prefix: "out/" } })] }, "targets[0].upload_destination.bucket"],
    ["a condition on a root the event lacks", { fires_on: onDatasetChange, condition: { field: "file.relative_path", comparator: "EQUALS", value: "a" } }, "condition"],
    ["a malformed condition", { fires_on: onDatasetChange, condition: { field: "name", comparator: "ROUGHLY", value: "a" } }, "condition.comparator"],
    ["a caller-supplied service_user_id", { fires_on: onDatasetChange, service_user_id: "someone@example.com" }, "service_user_id"],
    ["a bad name", { name: "no spaces", fires_on: onDatasetChange }, "name"],
  ];
  test.each(cases)("%s", async (_what, body, field) => {
    const before = (await ok(alice.client.get("/v1/triggers"))).total_count;
    expectBadRequest(await createV2(alice.client, body), field);
    expect((await ok(alice.client.get("/v1/triggers"))).total_count).toBe(before);
  });

  test("an action the org cannot invoke is a 404", async () => {
    const res = await createV2(alice.client, { fires_on: onDatasetChange, targets: [{ ...actionTarget({ required_inputs: [] }), action: { name: "missing" } }] });
    expect(res.status).toBe(404);
  });

  test("an upload destination dataset must be the org's: another org's or a missing one is a 404, nothing written", async () => {
    const own = await createDataset(alice.client, "trigger-outputs");
    const theirs = await createDataset(bob.client, "not-alice's");
    const toDataset = (id: string) => actionTarget({ upload_destination: { destination_type: "Dataset", destination_id: id } });
    const before = (await ok(alice.client.get("/v1/triggers"))).total_count;
    for (const id of [theirs, "ds_missing"]) {
      const res = await createV2(alice.client, { fires_on: onDatasetChange, targets: [toDataset(id)] });
      expect({ status: res.status, message: res.body?.error?.message }).toEqual({ status: 404, message: expect.stringContaining(id) });
    }
    expect((await ok(alice.client.get("/v1/triggers"))).total_count).toBe(before);
    const trigger = await ok(createV2(alice.client, { fires_on: onDatasetChange, targets: [toDataset(own)] }));
    expect((await alice.client.put(`/v1/triggers/id/${trigger.trigger_id}`, { targets: [toDataset(theirs)] })).status).toBe(404);
    expect((await ok(alice.client.get(`/v1/triggers/id/${trigger.trigger_id}`))).targets[0].upload_destination).toEqual({ destination_type: "Dataset", destination_id: own });
  });

  test("a parameter the action does not declare is a 400", async () => {
    expectBadRequest(await createV2(alice.client, { fires_on: onDatasetChange, targets: [actionTarget({ parameter_values: { nope: 1 } })] }), "targets[0].parameter_values.nope");
  });
});

describe("firing", () => {
  test("an upload fires a per-file action target once per matching file, with dispatches listed", async () => {
    const datasetId = await createDataset(alice.client, unique("ds"));
    const trigger = await ok(createV2(alice.client, { fires_on: { type: "events", events: ["file.uploaded"], once_per: "file" }, targets: [actionTarget()] }));
    await uploadFiles(alice.client, datasetId, { "a/one.bag": "1", "two.bag": "2", "notes.txt": "n" });
    const dispatches = await waitFor("two dispatches", async () => {
      const items = await dispatchesOf(alice.client, trigger.trigger_id);
      return items.length === 2 && items.every((d) => d.status === "dispatched") ? items : undefined;
    });
    for (const d of dispatches) {
      expect(d).toMatchObject({ trigger_id: trigger.trigger_id, org_id: alice.orgId, target_id: "run", target_type: "invoke_action", event_type: "file.uploaded", dataset_id: datasetId });
      expect(d.idempotency_token).toMatch(/^file\.uploaded\|file:fl_/);
      const invocation = await ok(alice.client.get(`/v1/actions/invocations/${d.result_ref}`));
      expect(invocation).toMatchObject({ provenance: { source: { source_type: "Trigger", source_id: trigger.trigger_id } } });
    }
  });

  test("once_per dataset fires once however many uploads follow", async () => {
    const datasetId = await createDataset(alice.client, unique("ds"));
    const trigger = await ok(createV2(alice.client, { fires_on: { type: "events", events: ["dataset.upload_completed"], once_per: "dataset" }, targets: [slackTarget("upload into {{dataset.dataset_id}}")] }));
    await uploadFiles(alice.client, datasetId, { "a.bag": "1" });
    await waitFor("the first dispatch", async () => ((await dispatchesOf(alice.client, trigger.trigger_id)).length === 1 ? true : undefined));
    const dryAfter = await ok(alice.client.post(`/v1/triggers/id/${trigger.trigger_id}/dry-run`, { dataset_id: datasetId }));
    expect(dryAfter.would_fire).toBe(false);
    expect(dryAfter.gates.at(-1)).toMatchObject({ gate: "already_fired", status: "failed", idempotency_token: `dataset.upload_completed|dataset:${datasetId}` });
    expect(sink.received).toContainEqual({ channel: "C_ALERTS", text: `upload into ${datasetId}` });
  });

  test("a dataset metadata change fires a Slack target when the condition holds, rendering placeholders", async () => {
    const datasetId = await createDataset(alice.client, unique("ds"));
    const trigger = await ok(
      createV2(alice.client, {
        fires_on: onDatasetChange,
        condition: { field: "metadata.robot", comparator: "EQUALS", value: "rover-9" },
        targets: [slackTarget("{{dataset.name}} is on {{dataset.metadata.robot}}")],
      }),
    );
    await ok(alice.client.put(`/v1/datasets/${datasetId}`, { metadata_changeset: { put_fields: { robot: "rover-1" } } }));
    await ok(alice.client.put(`/v1/datasets/${datasetId}`, { metadata_changeset: { put_fields: { robot: "rover-9" } } }));
    const [dispatch] = await waitFor("a dispatch", async () => {
      const items = await dispatchesOf(alice.client, trigger.trigger_id);
      return items.length > 0 && items[0].status === "dispatched" ? items : undefined;
    });
    expect(dispatch).toMatchObject({ event_type: "dataset.metadata_updated", subject: `roboto://${alice.orgId}/dataset/${datasetId}`, status: "dispatched" });
    const name = (await ok(alice.client.get(`/v1/datasets/${datasetId}`))).name;
    expect(sink.received.filter((b: any) => b.text === `${name} is on rover-9`)).toHaveLength(1);
    expect(sink.received.filter((b: any) => b.text === `${name} is on rover-1`)).toHaveLength(0);
  });

  test("a disabled trigger does not fire", async () => {
    const datasetId = await createDataset(alice.client, unique("ds"));
    const trigger = await ok(createV2(alice.client, { fires_on: { type: "events", events: ["dataset.upload_completed"], once_per: "occurrence" }, enabled: false }));
    const witness = await ok(createV2(alice.client, { fires_on: { type: "events", events: ["dataset.upload_completed"], once_per: "occurrence" }, targets: [slackTarget("witness")] }));
    await uploadFiles(alice.client, datasetId, { "a.bag": "1" });
    await waitFor("the witness to fire", async () => ((await dispatchesOf(alice.client, witness.trigger_id)).length === 1 ? true : undefined));
    expect(await dispatchesOf(alice.client, trigger.trigger_id)).toEqual([]);
  });
});

describe("dry run", () => {
  test("traces the gates for a dataset and writes nothing", async () => {
    const datasetId = await createDataset(alice.client, unique("ds"));
    // The change is dispatched before the trigger under test exists: the witness saw it first.
    const witness = await ok(createV2(alice.client, { fires_on: onDatasetChange }));
    await ok(alice.client.put(`/v1/datasets/${datasetId}`, { metadata_changeset: { put_fields: { robot: "r2" } } }));
    await waitFor("the witness to fire", async () => ((await dispatchesOf(alice.client, witness.trigger_id)).some((d) => d.dataset_id === datasetId) ? true : undefined));
    const trigger = await ok(createV2(alice.client, { fires_on: onDatasetChange, condition: { field: "dataset.metadata.robot", comparator: "EQUALS", value: "r2" } }));
    const yes = await ok(alice.client.post(`/v1/triggers/id/${trigger.trigger_id}/dry-run`, { dataset_id: datasetId }));
    expect(yes).toMatchObject({ trigger_id: trigger.trigger_id, event_type: "dataset.metadata_updated", would_fire: true });
    expect(yes.gates.map((g: any) => [g.gate, g.status])).toEqual([
      ["subscribed", "passed"],
      ["enabled", "passed"],
      ["condition", "passed"],
      ["target_prefilter", "passed"],
      ["already_fired", "passed"],
    ]);
    expect(yes.gates[2].condition_leaves).toEqual([{ field: "dataset.metadata.robot", comparator: "EQUALS", expected: "r2", actual: "r2", passed: true }]);
    const other = await createDataset(alice.client, unique("ds"));
    const no = await ok(alice.client.post(`/v1/triggers/id/${trigger.trigger_id}/dry-run`, { dataset_id: other }));
    expect(no.would_fire).toBe(false);
    expect(no.gates.map((g: any) => g.status)).toEqual(["passed", "passed", "failed", "not_evaluated", "not_evaluated"]);
    const unsubscribed = await ok(alice.client.post(`/v1/triggers/id/${trigger.trigger_id}/dry-run`, { dataset_id: datasetId, event_type: "dataset.created" }));
    expect(unsubscribed.gates[0]).toMatchObject({ gate: "subscribed", status: "failed" });
    expect(await dispatchesOf(alice.client, trigger.trigger_id)).toEqual([]);
  });

  test("takes a full event, and refuses two references or a bad event type", async () => {
    const trigger = await ok(createV2(alice.client, { fires_on: onDatasetChange }));
    const event = { id: "ev_1", source: "x", type: "dataset.metadata_updated", time: "2026-01-01T00:00:00Z", org_id: alice.orgId, data: { dataset_id: "ds_none", changeset: {} } };
    expect((await ok(alice.client.post(`/v1/triggers/id/${trigger.trigger_id}/dry-run`, { event }))).would_fire).toBe(true);
    expectBadRequest(await alice.client.post(`/v1/triggers/id/${trigger.trigger_id}/dry-run`, { dataset_id: "ds_1", file_id: "fl_1" }), "dataset_id");
    expectBadRequest(await alice.client.post(`/v1/triggers/id/${trigger.trigger_id}/dry-run`, { event_type: "nope" }), "event_type");
    expectBadRequest(await alice.client.post(`/v1/triggers/id/${trigger.trigger_id}/dry-run`, { event: { ...event, type: "nope" } }), "event.type");
  });
});

test("event samples cover the twelve event types", async () => {
  const { samples } = await ok(alice.client.get("/v1/triggers/events/samples"));
  expect(Object.keys(samples).sort()).toEqual(
    [
      "dataset.created",
      "dataset.metadata_updated",
      "dataset.tag_added",
      "dataset.upload_completed",
      "event.created",
      "file.ingested",
      "file.metadata_updated",
      "file.uploaded",
      "invocation.completed",
      "invocation.failed",
      "schedule.fired",
      "session.ingested",
    ].sort(),
  );
  expect(samples["file.uploaded"]).toMatchObject({ event_type: "file.uploaded", event: { type: "file.uploaded" }, namespace: { file: expect.any(Object), dataset: expect.any(Object) } });
  expect(samples["file.uploaded"].paths).toContain("file.relative_path");
});

describe("update and delete by id", () => {
  test("renames, disables, replaces the source and clears the condition; omitted fields stay", async () => {
    const trigger = await ok(createV2(alice.client, { fires_on: onDatasetChange, condition: { field: "name", comparator: "EQUALS", value: "x" } }));
    const renamed = unique("renamed");
    const updated = await ok(alice.client.put(`/v1/triggers/id/${trigger.trigger_id}`, { name: renamed, enabled: false, condition: null, fires_on: { type: "events", events: ["dataset.created"], once_per: "dataset" } }));
    expect(updated).toMatchObject({ trigger_id: trigger.trigger_id, name: renamed, enabled: false, fires_on: { events: ["dataset.created"], once_per: "dataset" }, targets: trigger.targets });
    expect(updated.condition ?? null).toBeNull();
    expect((await alice.client.get(`/v1/triggers/${trigger.name}`)).status).toBe(404);
    expect((await ok(alice.client.get(`/v1/triggers/${renamed}`))).trigger_id).toBe(trigger.trigger_id);
  });

  test("refuses a taken name (409), bad input (400) and a service user; a legacy trigger only switches on and off", async () => {
    const one = await ok(createV2(alice.client, { fires_on: onDatasetChange }));
    const two = await ok(createV2(alice.client, { fires_on: onDatasetChange }));
    expect((await alice.client.put(`/v1/triggers/id/${two.trigger_id}`, { name: one.name })).status).toBe(409);
    expectBadRequest(await alice.client.put(`/v1/triggers/id/${two.trigger_id}`, { targets: [] }), "targets");
    expectBadRequest(await alice.client.put(`/v1/triggers/id/${two.trigger_id}`, { enabled: "yes" }), "enabled");
    expectBadRequest(await alice.client.put(`/v1/triggers/id/${two.trigger_id}`, { service_user_id: "x" }), "service_user_id");
    expect(await ok(alice.client.get(`/v1/triggers/id/${two.trigger_id}`))).toEqual(two);
    const legacy = await ok(alice.client.post("/v1/triggers", { name: unique("legacy"), action_name: "process", for_each: "dataset", required_inputs: ["*"], parameter_values: { who: "x" } }, LEGACY_TRIGGERS));
    expectBadRequest(await alice.client.put(`/v1/triggers/id/${legacy.trigger_id}`, { fires_on: onDatasetChange }), "fires_on");
    expect((await ok(alice.client.put(`/v1/triggers/id/${legacy.trigger_id}`, { enabled: false }))).enabled).toBe(false);
    expectBadRequest(await alice.client.put(`/v1/triggers/${one.name}`, { enabled: false }), "name");
  });

  test("delete removes the trigger and its dispatch history; the legacy name route sees the same row", async () => {
    const datasetId = await createDataset(alice.client, unique("ds"));
    const trigger = await ok(createV2(alice.client, { fires_on: { type: "events", events: ["dataset.upload_completed"], once_per: "occurrence" } }));
    await uploadFiles(alice.client, datasetId, { "a.bag": "1" });
    await waitFor("a dispatch", async () => ((await dispatchesOf(alice.client, trigger.trigger_id)).length === 1 ? true : undefined));
    expect((await alice.client.delete(`/v1/triggers/id/${trigger.trigger_id}`)).status).toBe(200);
    expect((await alice.client.get(`/v1/triggers/id/${trigger.trigger_id}`)).status).toBe(404);
    expect((await alice.client.get(`/v1/triggers/id/${trigger.trigger_id}/dispatches`)).status).toBe(404);
    expect((await alice.client.get(`/v1/triggers/${trigger.name}`)).status).toBe(404);
  });
});

test("dispatches page with keyset tokens, newest first", async () => {
  const datasetId = await createDataset(alice.client, unique("ds"));
  const trigger = await ok(createV2(alice.client, { fires_on: { type: "events", events: ["file.uploaded"], once_per: "file" }, targets: [actionTarget()] }));
  await uploadFiles(alice.client, datasetId, { "1.bag": "1", "2.bag": "2", "3.bag": "3" });
  // Finished ones: a dispatch still running changes between the reads below.
  const all = await waitFor("three finished dispatches", async () => {
    const items = await dispatchesOf(alice.client, trigger.trigger_id);
    return items.length === 3 && items.every((d: { status: string }) => d.status !== "claimed") ? items : undefined;
  });
  const first = await ok(alice.client.get(`/v1/triggers/id/${trigger.trigger_id}/dispatches?limit=2`));
  expect(first.items).toHaveLength(2);
  const second = await ok(alice.client.get(`/v1/triggers/id/${trigger.trigger_id}/dispatches?limit=2&page_token=${encodeURIComponent(first.next_token)}`));
  expect(second.next_token ?? null).toBeNull();
  expect([...first.items, ...second.items]).toEqual(all);
  expect((await alice.client.get(`/v1/triggers/id/${trigger.trigger_id}/dispatches?page_token=junk`)).status).toBe(400);
});

test("another org sees nothing", async () => {
  const trigger = await ok(createV2(alice.client, { fires_on: onDatasetChange }));
  const id = trigger.trigger_id;
  const b = bob.client;
  expect((await ok(b.get("/v1/triggers"))).items.map((i: any) => i.trigger_id)).not.toContain(id);
  expect((await b.get(`/v1/triggers/id/${id}`)).status).toBe(404);
  expect((await b.get(`/v1/triggers/${trigger.name}`)).status).toBe(404);
  expect((await b.put(`/v1/triggers/id/${id}`, { enabled: false })).status).toBe(404);
  expect((await b.get(`/v1/triggers/id/${id}/dispatches`)).status).toBe(404);
  expect((await b.post(`/v1/triggers/id/${id}/dry-run`, {})).status).toBe(404);
  expect((await b.delete(`/v1/triggers/id/${id}`)).status).toBe(404);
  expect(await ok(alice.client.get(`/v1/triggers/id/${id}`))).toEqual(trigger);
});
