import { createDataset, expectBadRequest, expectError, startWithTenants, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { createAction, DURATION, invocationPath, invoke, invokeBody, ISO, ok, setStatus, unique, walk, type StatusName } from "./invocation-fixtures";

// Invocations through the gateway: invoke_action (POST /v1/actions/{name}/invoke), get_invocation,
// the three body-less operations (cancel, heartbeat, delete), set_invocation_image_digest (PUT
// .../container-info), set_upload_destination (PUT .../logs), set_invocation_status (POST
// .../status), get_logs (GET .../logs, page_token) and stream_logs (GET .../logs/stream, last_read).
// Log lines are written by runners over gRPC; here they are seeded through the service's ORM.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let dataset: string;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
  dataset = await createDataset(alice.client, "inputs");
});
afterAll(() => t?.close());

/** Invokes one of alice's actions on her dataset. */
const invokeAs = (name: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) => invoke(alice.client, dataset, name, extra, headers);
const body = (extra: Record<string, unknown> = {}) => invokeBody(dataset, extra);
const path = invocationPath;

/** A fresh Queued invocation of a fresh action in alice's org. */
async function queued(): Promise<any> {
  const action = await createAction(alice.client);
  return invokeAs(action.name);
}

/** Invocations of alice's org (the count shows whether a refused request wrote anything). */
async function invocationCount(): Promise<number> {
  return ok(await alice.client.post("/v1/actions/invocations/query", { limit: 1 })).total_count;
}

/** Appends `count` log lines (`line 1` ...) as a runner would. */
async function seedLogs(invocationId: string, count: number, process = "action"): Promise<void> {
  await t.platform.services.compute.orm.em.fork().getConnection().execute(
    `insert into invocation_logs (invocation_id, process, log, timestamp)
     select ?, ?, 'line ' || g, timestamp '2026-01-01 00:00:00+00' + g * interval '1 millisecond' from generate_series(1, ?) g`,
    [invocationId, process, count],
  );
}

describe("invoke_action", () => {
  test("creates a Queued invocation in the caller's org and answers the full record", async () => {
    const action = await createAction(alice.client, {
      compute_requirements: { vCPU: 1024, memory_MiB: 2048 },
      container_parameters: { command: ["python", "main.py"], env_vars: { A: "1" }, workdir: "/app" },
      timeout: 600,
    });
    const invocation = await invokeAs(action.name, { idempotency_id: unique("key"), rich_input_data: { files: ["a.bag"] } });
    expect(invocation).toEqual({
      created: ISO,
      data_source: { data_source_type: "Dataset", data_source_id: dataset },
      input_data: ["**/*.bag"],
      rich_input_data: { files: ["a.bag"] },
      upload_destination: null,
      invocation_id: expect.stringMatching(/^iv_[0-9a-z]{20}$/),
      idempotency_id: expect.stringMatching(/^key-/),
      compute_requirements: { vCPU: 1024, memory: 2048, gpu: false, storage: 21 },
      container_parameters: { command: ["python", "main.py"], entry_point: [], env_vars: { A: "1" }, workdir: "/app" },
      last_heartbeat: null,
      last_status: 0,
      org_id: alice.orgId,
      parameter_values: { threshold: "0.5", mode: "fast" },
      provenance: {
        action: { name: action.name, org_id: alice.orgId, digest: action.digest },
        executable: { container_image_uri: "registry.example.com/detector:1", container_image_digest: null },
        source: { source_type: "Manual", source_id: alice.userId },
      },
      status: [{ status: 0, detail: null, timestamp: invocation.created }],
      duration: DURATION,
      timeout: 600,
    });
    const got = ok(await alice.client.get(path(invocation.invocation_id)));
    expect(got).toEqual({ ...invocation, duration: DURATION });
  });

  test("the timeout defaults to 30 minutes, an integer, and overrides apply over the action's settings", async () => {
    const action = await createAction(alice.client, { compute_requirements: { vCPU: 1024 }, container_parameters: { command: ["run"], workdir: "/app" } });
    const plain = await invokeAs(action.name);
    expect(plain.timeout).toBe(30);
    const overridden = await invokeAs(action.name, {
      compute_requirement_overrides: { vCPU: 2048, memory_MiB: 4096 },
      container_parameter_overrides: { entry_point: ["/bin/sh"], env_vars: { B: "2" } },
      timeout: 120,
      parameter_values: { threshold: 1, mode: "slow" },
    });
    expect(overridden).toMatchObject({
      compute_requirements: { vCPU: 2048, memory: 4096, gpu: false, storage: 21 },
      container_parameters: { command: ["run"], entry_point: ["/bin/sh"], env_vars: { B: "2" }, workdir: "/app" },
      timeout: 120,
      parameter_values: { threshold: 1, mode: "slow" },
    });
  });

  test("?digest= invokes an earlier definition of the action; an unknown digest is a 404", async () => {
    const action = await createAction(alice.client, { timeout: 300 });
    const updated = ok(await alice.client.put(`/v1/actions/${action.name}`, { timeout: 90 }));
    expect(updated.digest).not.toBe(action.digest);
    const old = ok(await alice.client.post(`/v1/actions/${action.name}/invoke?digest=${action.digest}`, body()));
    expect(old.provenance.action.digest).toBe(action.digest);
    expect(old.timeout).toBe(300);
    const current = await invokeAs(action.name);
    expect(current.provenance.action.digest).toBe(updated.digest);
    expect(current.timeout).toBe(90);
    const unknown = await alice.client.post(`/v1/actions/${action.name}/invoke?digest=${"0".repeat(32)}`, body());
    expect(unknown.status).toBe(404);
  });

  test("a Trigger invocation records its trigger id; without one it is a 400 naming invocation_source_id", async () => {
    const action = await createAction(alice.client);
    const triggered = await invokeAs(action.name, { invocation_source: "Trigger", invocation_source_id: "tr_abc" });
    expect(triggered.provenance.source).toEqual({ source_type: "Trigger", source_id: "tr_abc" });
    expectBadRequest(await alice.client.post(`/v1/actions/${action.name}/invoke`, body({ invocation_source: "Trigger" })), "invocation_source_id");
  });

  test("a Manual invocation is always the caller's, whatever invocation_source_id says", async () => {
    const action = await createAction(alice.client);
    const manual = await invokeAs(action.name, { invocation_source_id: "someone-else" });
    expect(manual.provenance.source).toEqual({ source_type: "Manual", source_id: alice.userId });
  });

  test("an Action Hub action of another org is invoked with the owner header; the invocation is the caller's", async () => {
    const action = await createAction(bob.client);
    const owner = { "X-Service-Resource-Owner-Id": bob.orgId };
    const privateRes = await alice.client.post(`/v1/actions/${action.name}/invoke`, body(), owner);
    expectError(privateRes, 404, /not found/);
    ok(await bob.client.put(`/v1/actions/${action.name}/accessibility`, { accessibility: "action_hub" }));
    const invocation = await invokeAs(action.name, {}, owner);
    expect(invocation.org_id).toBe(alice.orgId);
    expect(invocation.provenance.action).toEqual({ name: action.name, org_id: bob.orgId, digest: expect.any(String) });
    expectError(await bob.client.get(path(invocation.invocation_id)), 404, `invocation '${invocation.invocation_id}' not found`);
  });

  test("the same idempotency_id answers the same invocation, also for 10 concurrent requests", async () => {
    const action = await createAction(alice.client);
    const key = unique("idem");
    const first = await invokeAs(action.name, { idempotency_id: key });
    const again = await invokeAs(action.name, { idempotency_id: key });
    expect(again.invocation_id).toBe(first.invocation_id);

    const racing = unique("race");
    const before = await invocationCount();
    const answers = await Promise.all(Array.from({ length: 10 }, () => alice.client.post(`/v1/actions/${action.name}/invoke`, body({ idempotency_id: racing }))));
    const ids = answers.map((res) => ok(res).invocation_id);
    expect(new Set(ids).size).toBe(1);
    expect(await invocationCount()).toBe(before + 1);
  });

  test("upload_destination takes {bucket, prefix} or the SDK's dataset form", async () => {
    const action = await createAction(alice.client);
    const bucketed = await invokeAs(action.name, { upload_destination: { bucket: "outputs", prefix: "runs/1/" } });
    expect(bucketed.upload_destination).toEqual({ bucket: "outputs", prefix: "runs/1/" });
    const target = await createDataset(alice.client, "outputs");
    const toDataset = await invokeAs(action.name, { upload_destination: { destination_type: "Dataset", destination_id: target } });
    expect(toDataset.upload_destination).toEqual({ bucket: "", prefix: `dataset:${target}` });
    const missing = await alice.client.post(`/v1/actions/${action.name}/invoke`, body({ upload_destination: { destination_type: "Dataset", destination_id: "ds_missing" } }));
    expectError(missing, 404, "dataset 'ds_missing' not found");
  });

  describe("refuses bad input with a 4xx naming the field, writing nothing", () => {
    let action: any;
    let before: number;
    beforeAll(async () => {
      action = await createAction(alice.client);
    });
    beforeEach(async () => {
      before = await invocationCount();
    });
    afterEach(async () => {
      expect(await invocationCount()).toBe(before);
    });
    const post = (extra: Record<string, unknown>, name = action.name) => alice.client.post(`/v1/actions/${name}/invoke`, body(extra));

    test("an unknown action is a 404", async () => {
      expectError(await post({}, "no-such-action"), 404, "action 'no-such-action' not found");
    });
    test("data_source_type other than Dataset", async () => {
      expectBadRequest(await post({ data_source_type: "Topic" }), "data_source_type");
    });
    test("invocation_source other than Trigger or Manual", async () => {
      expectBadRequest(await post({ invocation_source: "Cron" }), "invocation_source");
    });
    test("a missing required parameter", async () => {
      expectBadRequest(await post({ parameter_values: {} }), "parameter_values.threshold");
    });
    test("an unknown parameter", async () => {
      expectBadRequest(await post({ parameter_values: { threshold: "1", bogus: "x" } }), "parameter_values.bogus");
    });
    test("parameter values that are not an object", async () => {
      expectBadRequest(await post({ parameter_values: "threshold=1" }), "parameter_values");
    });
    test("a missing data_source_id", async () => {
      expectBadRequest(await post({ data_source_id: undefined }), "data_source_id");
    });
    test("a dataset that does not exist, or is another org's, is a 404", async () => {
      expectError(await post({ data_source_id: "ds_missing" }), 404, "dataset 'ds_missing' not found");
      const bobs = await createDataset(bob.client, "bobs");
      expectError(await post({ data_source_id: bobs }), 404, `dataset '${bobs}' not found`);
    });
    test("an upload destination of another type", async () => {
      expectBadRequest(await post({ upload_destination: { destination_type: "Bucket", destination_id: "x" } }), "upload_destination.destination_type");
      expectBadRequest(await post({ upload_destination: { bucket: "", prefix: "p" } }), "upload_destination.bucket");
    });
    test("compute requirement overrides outside the allowed sizes", async () => {
      expectBadRequest(await post({ compute_requirement_overrides: { vCPU: 3 } }), "compute_requirement_overrides.vCPU");
    });
    test("a timeout that is not a positive number of minutes", async () => {
      expectBadRequest(await post({ timeout: 0 }), "timeout");
    });
  });
});

describe("set_invocation_status", () => {
  test("walks the lifecycle, recording each status with its detail and stopping the duration at the end", async () => {
    const invocation = await queued();
    const done = await walk(alice.client, invocation.invocation_id, "Scheduled", "Downloading", "Processing", "Uploading", "Completed");
    expect(done.last_status).toBe(5);
    expect(done.status).toEqual([
      { status: 0, detail: null, timestamp: invocation.created },
      ...[1, 2, 3, 4, 5].map((status) => ({ status, detail: expect.stringMatching(/^now /), timestamp: ISO })),
    ]);
    expect(done.status.map((s: { detail: string | null }) => s.detail)).toEqual([null, "now Scheduled", "now Downloading", "now Processing", "now Uploading", "now Completed"]);
    const later = ok(await alice.client.get(path(invocation.invocation_id)));
    expect(later.duration).toBe(done.duration);
  });

  test("a status may be re-stated", async () => {
    const invocation = await queued();
    const record = await walk(alice.client, invocation.invocation_id, "Scheduled", "Scheduled");
    expect(record.status.map((s: { status: number }) => s.status)).toEqual([0, 1, 1]);
  });

  test.each<[string, StatusName[], StatusName, StatusName]>([
    ["Completed is final", ["Scheduled", "Completed"], "Processing", "Completed"],
    ["Completed is final (to Cancelled)", ["Completed"], "Cancelled", "Completed"],
    ["Cancelled is final", ["Cancelled"], "Queued", "Cancelled"],
    ["Deadly is final", ["Deadly"], "Failed", "Deadly"],
    ["Failed goes only to Queued or Deadly", ["Processing", "Failed"], "Processing", "Failed"],
    ["Failed does not go to Completed", ["Failed"], "Completed", "Failed"],
    ["Deadly only from Queued", ["Processing"], "Deadly", "Processing"],
    ["no going backwards", ["Processing"], "Scheduled", "Processing"],
  ])("refuses a disallowed move with a 400 naming both statuses: %s", async (_, path_, to, from) => {
    const invocation = await queued();
    if (path_.length > 0) await walk(alice.client, invocation.invocation_id, ...path_);
    const before = ok(await alice.client.get(path(invocation.invocation_id)));
    expectError(await setStatus(alice.client, invocation.invocation_id, to), 400, `cannot move invocation from ${from} to ${to}`);
    const after = ok(await alice.client.get(path(invocation.invocation_id)));
    expect(after.status).toEqual(before.status);
  });

  test("Failed may be retried (back to Queued) or declared Deadly; Queued may become Deadly", async () => {
    const retried = await queued();
    const back = await walk(alice.client, retried.invocation_id, "Processing", "Failed", "Queued");
    expect(back.last_status).toBe(0);
    const doomed = await queued();
    expect((await walk(alice.client, doomed.invocation_id, "Failed", "Deadly")).last_status).toBe(999);
    const early = await queued();
    expect((await walk(alice.client, early.invocation_id, "Deadly")).last_status).toBe(999);
  });

  test("a retried invocation runs again: its duration is no longer frozen at the failure", async () => {
    const invocation = await queued();
    const failed = await walk(alice.client, invocation.invocation_id, "Failed");
    const retried = await walk(alice.client, invocation.invocation_id, "Queued");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const later = ok(await alice.client.get(path(invocation.invocation_id)));
    expect(later.duration).not.toBe(failed.duration);
    expect(retried.status.map((s: { status: number }) => s.status)).toEqual([0, 998, 0]);
  });

  test("two racing moves cannot both apply: exactly one of Completed and Failed wins", async () => {
    const invocation = await queued();
    await walk(alice.client, invocation.invocation_id, "Processing");
    const [a, b] = await Promise.all([setStatus(alice.client, invocation.invocation_id, "Completed"), setStatus(alice.client, invocation.invocation_id, "Failed")]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    const record = ok(await alice.client.get(path(invocation.invocation_id)));
    expect(record.status).toHaveLength(3);
  });

  test("refuses a status that is not an InvocationStatus and a missing detail", async () => {
    const invocation = await queued();
    expectBadRequest(await alice.client.post(path(invocation.invocation_id, "/status"), { status: 42, detail: "x" }), "status");
    expectBadRequest(await alice.client.post(path(invocation.invocation_id, "/status"), { detail: "x" }), "status");
    expectBadRequest(await alice.client.post(path(invocation.invocation_id, "/status"), { status: 1 }), "detail");
  });
});

describe("cancel, heartbeat and delete", () => {
  test("cancel moves an unfinished invocation to Cancelled and answers it; cancelling again changes nothing", async () => {
    const invocation = await queued();
    await walk(alice.client, invocation.invocation_id, "Processing");
    const cancelled = ok(await alice.client.post(path(invocation.invocation_id, "/cancel")));
    expect(cancelled).toEqual({
      ...invocation,
      last_status: 997,
      status: [invocation.status[0], { status: 3, detail: "now Processing", timestamp: ISO }, { status: 997, detail: `cancelled by ${alice.userId}`, timestamp: ISO }],
      duration: DURATION,
    });
    const again = ok(await alice.client.post(path(invocation.invocation_id, "/cancel")));
    expect(again).toEqual(cancelled);
  });

  test("cancel refuses an invocation that ended otherwise, naming both statuses", async () => {
    const completed = await queued();
    await walk(alice.client, completed.invocation_id, "Completed");
    expectError(await alice.client.post(path(completed.invocation_id, "/cancel")), 400, "cannot move invocation from Completed to Cancelled");
    const failed = await queued();
    await walk(alice.client, failed.invocation_id, "Failed");
    expectError(await alice.client.post(path(failed.invocation_id, "/cancel")), 400, "cannot move invocation from Failed to Cancelled");
  });

  test("heartbeat answers data {} and records last_heartbeat; an ended invocation refuses it", async () => {
    const invocation = await queued();
    const res = await alice.client.post(path(invocation.invocation_id, "/heartbeat"));
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { data: {} } });
    const record = ok(await alice.client.get(path(invocation.invocation_id)));
    expect(record.last_heartbeat).toEqual(ISO);
    expect(Date.parse(record.last_heartbeat)).toBeGreaterThanOrEqual(Date.parse(record.created));
    await walk(alice.client, invocation.invocation_id, "Cancelled");
    expectError(await alice.client.post(path(invocation.invocation_id, "/heartbeat")), 400, /is Cancelled: heartbeats are only accepted while it runs$/);
  });

  test("delete refuses an unfinished invocation, then removes an ended one with its logs (data null)", async () => {
    const invocation = await queued();
    await seedLogs(invocation.invocation_id, 3);
    expectError(await alice.client.delete(path(invocation.invocation_id)), 400, `invocation ${invocation.invocation_id} is Queued: cancel it first`);
    ok(await alice.client.post(path(invocation.invocation_id, "/cancel")));
    const res = await alice.client.delete(path(invocation.invocation_id));
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { data: null } });
    expectError(await alice.client.get(path(invocation.invocation_id)), 404, `invocation '${invocation.invocation_id}' not found`);
    expectError(await alice.client.get(path(invocation.invocation_id, "/logs")), 404, `invocation '${invocation.invocation_id}' not found`);
    const rows = await t.platform.services.compute.orm.em.fork().getConnection().execute("select count(*) as n from invocation_logs where invocation_id = ?", [invocation.invocation_id]);
    expect(Number(rows[0].n)).toBe(0);
  });
});

describe("set_invocation_image_digest and set_upload_destination", () => {
  test("set the executable's image digest and the upload destination, answering the invocation", async () => {
    const invocation = await queued();
    const withDigest = ok(await alice.client.put(path(invocation.invocation_id, "/container-info"), { image_digest: "sha256:abc" }));
    expect(withDigest.provenance.executable).toEqual({ container_image_uri: "registry.example.com/detector:1", container_image_digest: "sha256:abc" });
    const withDestination = ok(await alice.client.put(path(invocation.invocation_id, "/logs"), { bucket: "logs-bucket", prefix: "iv/" }));
    expect(withDestination).toEqual({ ...withDigest, upload_destination: { bucket: "logs-bucket", prefix: "iv/" }, duration: DURATION });
  });

  test("refuse missing fields with a 400 naming them", async () => {
    const invocation = await queued();
    expectBadRequest(await alice.client.put(path(invocation.invocation_id, "/container-info"), {}), "image_digest");
    expectBadRequest(await alice.client.put(path(invocation.invocation_id, "/logs"), { prefix: "p" }), "bucket");
  });
});

describe("get_logs and stream_logs", () => {
  test("get_logs pages 1000 lines at a time with next_token, null on the last page", async () => {
    const invocation = await queued();
    await seedLogs(invocation.invocation_id, 2500, "setup");
    const first = ok(await alice.client.get(path(invocation.invocation_id, "/logs")));
    expect(first.items).toHaveLength(1000);
    expect(first.items[0]).toEqual({ partial_id: null, log: "line 1", process: "setup", timestamp: "2026-01-01T00:00:00.001Z" });
    expect(first.total_count).toBe(2500);
    expect(first.next_token).toEqual(expect.any(String));
    const second = ok(await alice.client.get(path(invocation.invocation_id, `/logs?page_token=${first.next_token}`)));
    expect(second.items[0].log).toBe("line 1001");
    const third = ok(await alice.client.get(path(invocation.invocation_id, `/logs?page_token=${second.next_token}`)));
    expect(third.items.map((i: { log: string }) => i.log)).toEqual(Array.from({ length: 500 }, (_, i) => `line ${2001 + i}`));
    expect(third).toMatchObject({ next_token: null, total_count: 2500 });
  });

  test("get_logs of an invocation without lines is an empty last page; page_token=None is the first page", async () => {
    const invocation = await queued();
    expect(ok(await alice.client.get(path(invocation.invocation_id, "/logs?page_token=None")))).toEqual({ items: [], next_token: null, total_count: 0 });
  });

  test("get_logs refuses a page token that is not one, or is another invocation's", async () => {
    const a = await queued();
    const b = await queued();
    await seedLogs(a.invocation_id, 1001);
    const token = ok(await alice.client.get(path(a.invocation_id, "/logs"))).next_token;
    expectBadRequest(await alice.client.get(path(b.invocation_id, `/logs?page_token=${token}`)), "page_token");
    expectBadRequest(await alice.client.get(path(a.invocation_id, "/logs?page_token=garbage!")), "page_token");
  });

  test("stream_logs returns new lines after last_read, keeps the cursor when nothing is new, and ends when the invocation has", async () => {
    const invocation = await queued();
    const id = invocation.invocation_id;
    expect(ok(await alice.client.get(path(id, "/logs/stream")))).toEqual({ items: [], last_read: "", has_next: true });
    await seedLogs(id, 3);
    const first = ok(await alice.client.get(path(id, "/logs/stream?last_read=None")));
    expect(first.items.map((i: { log: string }) => i.log)).toEqual(["line 1", "line 2", "line 3"]);
    expect(first.has_next).toBe(true);
    const idle = ok(await alice.client.get(path(id, `/logs/stream?last_read=${first.last_read}`)));
    expect(idle).toEqual({ items: [], last_read: first.last_read, has_next: true });
    await seedLogs(id, 2, "monitor");
    await walk(alice.client, id, "Completed");
    const last = ok(await alice.client.get(path(id, `/logs/stream?last_read=${first.last_read}`)));
    expect(last.items).toEqual([
      { partial_id: null, log: "line 1", process: "monitor", timestamp: ISO },
      { partial_id: null, log: "line 2", process: "monitor", timestamp: ISO },
    ]);
    expect(last.has_next).toBe(false);
    expect(ok(await alice.client.get(path(id, `/logs/stream?last_read=${last.last_read}`)))).toEqual({ items: [], last_read: last.last_read, has_next: false });
  });

  test("stream_logs of an ended invocation reports has_next while more than one batch of 1000 remains", async () => {
    const invocation = await queued();
    await walk(alice.client, invocation.invocation_id, "Failed");
    await seedLogs(invocation.invocation_id, 1200);
    const first = ok(await alice.client.get(path(invocation.invocation_id, "/logs/stream")));
    expect(first.items).toHaveLength(1000);
    expect(first.has_next).toBe(true);
    const second = ok(await alice.client.get(path(invocation.invocation_id, `/logs/stream?last_read=${first.last_read}`)));
    expect(second.items).toHaveLength(200);
    expect(second.items[0].log).toBe("line 1001");
    expect(second.has_next).toBe(false);
    expectBadRequest(await alice.client.get(path(invocation.invocation_id, "/logs/stream?last_read=nonsense!")), "last_read");
  });
});

describe("another org", () => {
  test("sees a 404 on every operation on an invocation, and changes nothing", async () => {
    const invocation = await queued();
    const id = invocation.invocation_id;
    await seedLogs(id, 1);
    const notFound = `invocation '${id}' not found`;
    expectError(await bob.client.get(path(id)), 404, notFound);
    expectError(await bob.client.post(path(id, "/cancel")), 404, notFound);
    expectError(await bob.client.post(path(id, "/heartbeat")), 404, notFound);
    expectError(await bob.client.delete(path(id)), 404, notFound);
    expectError(await bob.client.put(path(id, "/container-info"), { image_digest: "sha256:x" }), 404, notFound);
    expectError(await bob.client.put(path(id, "/logs"), { bucket: "b", prefix: "p" }), 404, notFound);
    expectError(await setStatus(bob.client, id, "Processing"), 404, notFound);
    expectError(await bob.client.get(path(id, "/logs")), 404, notFound);
    expectError(await bob.client.get(path(id, "/logs/stream")), 404, notFound);
    const unchanged = ok(await alice.client.get(path(id)));
    expect(unchanged).toEqual({ ...invocation, duration: DURATION });
  });

  test("naming an org the caller does not belong to as resource owner finds nothing", async () => {
    const invocation = await queued();
    expectError(await bob.client.get(path(invocation.invocation_id), { "X-Service-Resource-Owner-Id": alice.orgId }), 404, `invocation '${invocation.invocation_id}' not found`);
  });
});
