import {
  createDataset,
  createDevice,
  expectBadRequest,
  expectError,
  startWithTenants,
  uploadFiles,
  type ApiClient,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// Sessions through the gateway: the record in its later shape, updates (completion policy
// included), devices, files with their windows (in file time with an anchor, or in wall-clock
// time as older clients give them) and the session's bounds, the batch replies of add/remove
// files, listings by org, device and dataset, create-if-not-exists, bad input (a 400 naming the
// field, nothing written), other orgs (404s, empty listings) and what deleting a file, a device
// or a dataset does to sessions. Device sessions: sessions-device.e2e.ts; completion and
// ingestion: sessions-completion.e2e.ts.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["sessions-alice", "sessions-bob"]);
});
afterAll(() => t?.close());

let counter = 0;
const unique = (name: string) => `${name}-${++counter}`;
const ids = (page: { items: { session_id: string }[] }) => page.items.map((s) => s.session_id);

async function createSession(client: ApiClient, body: Record<string, unknown> = {}): Promise<any> {
  const res = await client.post("/v1/sessions", { name: unique("run"), ...body });
  if (res.status !== 200) throw new Error(`create session failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function datasetWithFiles(client: ApiClient, paths: string[]): Promise<{ datasetId: string; fileIds: string[] }> {
  const datasetId = await createDataset(client, "sessions");
  await uploadFiles(client, datasetId, Object.fromEntries(paths.map((p) => [p, `bytes of ${p}`])));
  const fileIds: string[] = [];
  for (const path of paths) fileIds.push((await client.get(`/v1/files/record/path/${encodeURIComponent(path)}/association/${datasetId}`)).body.data.file_id);
  return { datasetId, fileIds };
}

const addFiles = (client: ApiClient, sessionId: string, files: unknown[]) => client.post(`/v1/sessions/id/${sessionId}/files`, { files });

describe("create_session, get_session, list_sessions", () => {
  test("creates a session in its later shape and reads it back", async () => {
    const res = await alice.client.post("/v1/sessions", { name: "drive-1", description: "north loop", metadata: { site: "north" }, tags: ["a", "a", "b"], custom_fields: { pilot: "kim" } });
    expect(res.status).toBe(200);
    const session = res.body.data;
    expect(session).toEqual({
      session_id: expect.stringMatching(/^se_[0-9a-z]{20}$/),
      org_id: alice.orgId,
      name: "drive-1",
      description: "north loop",
      metadata: { site: "north" },
      custom_fields: { pilot: "kim" },
      tags: ["a", "b"],
      created: expect.any(String),
      created_by: alice.userId,
      modified: session.created,
      modified_by: alice.userId,
      min_timestamp_ns: null,
      max_timestamp_ns: null,
      status: "in_progress",
      completion_policy: null,
      completed_at: null,
      completed_by: null,
      completes_at: null,
      ingested_at: null,
      ingestion_count: 0,
    });
    expect(await alice.client.get(`/v1/sessions/id/${session.session_id}`)).toMatchObject({ status: 200, body: { data: session } });
  });

  test("a completion policy makes completes_at inactivity_minutes after creation", async () => {
    const session = await createSession(alice.client, { completion_policy: { inactivity_minutes: 30 } });
    expect(session.completion_policy).toEqual({ inactivity_minutes: 30 });
    expect(Date.parse(session.completes_at) - Date.parse(session.created)).toBe(30 * 60_000);
    expect((await createSession(alice.client, { completion_policy: null })).completion_policy).toBeNull();
  });

  test("lists the org's sessions newest first, paged", async () => {
    const [a, b, c] = [await createSession(alice.client), await createSession(alice.client), await createSession(alice.client)];
    const first = (await alice.client.get("/v1/sessions?page_size=2")).body.data;
    expect(ids(first)).toEqual([c.session_id, b.session_id]);
    const second = (await alice.client.get(`/v1/sessions?page_size=2&page_token=${encodeURIComponent(first.next_token)}`)).body.data;
    expect(second.items[0].session_id).toBe(a.session_id);
    expect(first.total_count).toBe(second.total_count);
  });

  test.each([
    [{ name: "x".repeat(121) }, "name"],
    [{ name: " " }, "name"],
    [{ tags: [""] }, "tags[0]"],
    [{ completion_policy: { inactivity_minutes: 0 } }, "completion_policy.inactivity_minutes"],
    [{ completion_policy: { inactivity_minutes: 10_081 } }, "completion_policy.inactivity_minutes"],
    [{ completion_policy: { inactivity_minutes: 1.5 } }, "completion_policy.inactivity_minutes"],
    [{ completion_policy: {} }, "completion_policy.inactivity_minutes"],
    [{ completion_policy: 5 }, "completion_policy"],
    [{ device_ids: [""] }, "device_ids[0]"],
  ])("bad input %j is a 400 naming %s and creates nothing", async (body, field) => {
    const before = (await alice.client.get("/v1/sessions")).body.data.total_count;
    expectBadRequest(await alice.client.post("/v1/sessions", { name: "bad", ...body }), field);
    expect((await alice.client.get("/v1/sessions")).body.data.total_count).toBe(before);
  });

  test("an unknown device, or another org's, is a 404 and creates nothing", async () => {
    await createDevice(bob.client, { device_id: "bobs-robot" });
    const before = (await alice.client.get("/v1/sessions")).body.data.total_count;
    expectError(await alice.client.post("/v1/sessions", { name: "x", device_ids: ["bobs-robot"] }), 404, "device 'bobs-robot' not found");
    expect((await alice.client.get("/v1/sessions")).body.data.total_count).toBe(before);
  });
});

describe("update_session and delete_session", () => {
  test("changes what it names; null clears the name, the description and the completion policy", async () => {
    const session = await createSession(alice.client, { description: "d", metadata: { a: 1 }, tags: ["x"] });
    const updated = await alice.client.put(`/v1/sessions/id/${session.session_id}`, {
      name: "renamed",
      metadata_changeset: { put_fields: { "b.c": 2 }, put_tags: ["y"] },
      custom_fields_changeset: { set_fields: { owner: "ops" } },
      completion_policy: { inactivity_minutes: 5 },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: "renamed", description: "d", metadata: { a: 1, b: { c: 2 } }, tags: ["x", "y"], custom_fields: { owner: "ops" }, completion_policy: { inactivity_minutes: 5 } });
    expect(Date.parse(updated.body.data.completes_at) - Date.parse(updated.body.data.modified)).toBe(5 * 60_000);
    const cleared = await alice.client.put(`/v1/sessions/id/${session.session_id}`, { name: null, description: null, completion_policy: null });
    expect(cleared.body.data).toMatchObject({ name: null, description: null, completion_policy: null, completes_at: null, tags: ["x", "y"] });
  });

  test("bad input is a 400 naming the field and changes nothing", async () => {
    const session = await createSession(alice.client);
    for (const [body, field] of [
      [{ name: 7 }, "name"],
      [{ completion_policy: { inactivity_minutes: -1 } }, "completion_policy.inactivity_minutes"],
      [{ metadata_changeset: { put_tags: [""] } }, "metadata_changeset.put_tags[0]"],
    ] as const) {
      expectBadRequest(await alice.client.put(`/v1/sessions/id/${session.session_id}`, body), field);
    }
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}`)).body.data).toEqual(session);
  });

  test("delete answers data null; the session is gone, its files and devices stay", async () => {
    const device = await createDevice(alice.client, { device_id: unique("robot") });
    const { fileIds } = await datasetWithFiles(alice.client, ["a.txt"]);
    const session = await createSession(alice.client, { device_ids: [device.device_id] });
    await addFiles(alice.client, session.session_id, [{ file_id: fileIds[0] }]);
    expect(await alice.client.delete(`/v1/sessions/id/${session.session_id}`)).toMatchObject({ status: 200, body: { data: null } });
    expectError(await alice.client.get(`/v1/sessions/id/${session.session_id}`), 404, `session '${session.session_id}' not found`);
    expectError(await alice.client.delete(`/v1/sessions/id/${session.session_id}`), 404, `session '${session.session_id}' not found`);
    expect((await alice.client.get(`/v1/files/record/${fileIds[0]}`)).status).toBe(200);
    expect((await alice.client.get(`/v1/devices/id/${device.device_id}`)).status).toBe(200);
  });
});

describe("session devices", () => {
  test("adds devices by device_id or universal id, lists their device_ids, removes them; repeats change nothing", async () => {
    const [one, two] = [await createDevice(alice.client, { device_id: unique("robot") }), await createDevice(alice.client, { device_id: `fleet/${unique("robot")}` })];
    const session = await createSession(alice.client, { device_ids: [one.universal_device_id] });
    expect(await alice.client.post(`/v1/sessions/id/${session.session_id}/devices`, { device_id: two.device_id })).toMatchObject({ status: 200, body: { data: null } });
    expect((await alice.client.post(`/v1/sessions/id/${session.session_id}/devices`, { device_id: two.device_id })).status).toBe(200);
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}/devices`)).body.data).toEqual({ items: [two.device_id, one.device_id], next_token: null, total_count: 2 });
    expect(await alice.client.delete(`/v1/sessions/id/${session.session_id}/devices`, { device_id: one.device_id })).toMatchObject({ status: 200, body: { data: null } });
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}/devices`)).body.data.items).toEqual([two.device_id]);
    expect((await alice.client.get(`/v1/devices/id/${encodeURIComponent(two.device_id)}/sessions`)).body.data.items.map((s: any) => s.session_id)).toEqual([session.session_id]);
    expectError(await alice.client.post(`/v1/sessions/id/${session.session_id}/devices`, { device_id: "nope" }), 404, "device 'nope' not found");
    expectBadRequest(await alice.client.post(`/v1/sessions/id/${session.session_id}/devices`, {}), "device_id");
  });
});

describe("session files", () => {
  test("adds files with windows in file time (with an anchor) or wall-clock time; the batch reply and the bounds follow", async () => {
    const { datasetId, fileIds } = await datasetWithFiles(alice.client, ["a.mcap", "b.mcap", "c.mcap"]);
    const session = await createSession(alice.client);
    const anchor = 1_700_000_000_000_000_000n;
    const res = await alice.client.raw(
      "POST",
      `/v1/sessions/id/${session.session_id}/files`,
      JSON.stringify({
        files: [
          { file_id: fileIds[0], anchor_ns: "ANCHOR", min_file_timestamp_ns: 5, max_file_timestamp_ns: 10, data_range: [0, 100] },
          { file_id: fileIds[1], range_min_timestamp_ns: "WALL_MIN", range_max_timestamp_ns: "WALL_MAX" },
          { file_id: fileIds[2] },
        ],
      })
        .replace('"ANCHOR"', anchor.toString())
        .replace('"WALL_MIN"', (anchor - 1_000n).toString())
        .replace('"WALL_MAX"', "9223372036854775807"),
    );
    expect(res.status).toBe(200);
    const [a, b, c] = res.body.data.responses;
    expect(a).toEqual({
      data: {
        file_id: fileIds[0],
        dataset_id: datasetId,
        name: "a.mcap",
        origination: "test",
        relative_path: "a.mcap",
        size: 15,
        tags: [],
        created: expect.any(String),
        modified: expect.any(String),
        min_wall_clock_timestamp_ns: 1_700_000_000_000_000_005,
        max_wall_clock_timestamp_ns: 1_700_000_000_000_000_010,
        range_min_timestamp_ns: 1_700_000_000_000_000_005,
        range_max_timestamp_ns: 1_700_000_000_000_000_010,
        data_range: [0, 100],
        unix_epoch_offset_ns: 1_700_000_000_000_000_000,
        ingestable: false,
        ingestion_status: "not_ingested",
      },
      error: null,
    });
    expect(b.data).toMatchObject({ file_id: fileIds[1], unix_epoch_offset_ns: null, data_range: null });
    expect(c.data).toMatchObject({ file_id: fileIds[2], min_wall_clock_timestamp_ns: null, max_wall_clock_timestamp_ns: null });
    const text = await (await fetch(`${t.url}/v1/sessions/id/${session.session_id}`, { headers: { authorization: `Bearer ${alice.token}` } })).text();
    expect(text).toContain(`"min_timestamp_ns":${anchor - 1_000n}`);
    expect(text).toContain(`"max_timestamp_ns":9223372036854775807`);
    expect(res.body.data.session).toMatchObject({ session_id: session.session_id });
    const listed = (await alice.client.get(`/v1/sessions/id/${session.session_id}/files`)).body.data;
    expect(listed.items.map((f: any) => f.file_id)).toEqual([fileIds[2], fileIds[1], fileIds[0]]);
    expect(listed.items[2]).toEqual(a.data);
  });

  test("a file that is not an available file of the org is refused on its own (404); the others are added", async () => {
    const { fileIds } = await datasetWithFiles(alice.client, ["a.txt"]);
    const { fileIds: bobs } = await datasetWithFiles(bob.client, ["b.txt"]);
    const session = await createSession(alice.client);
    const res = await addFiles(alice.client, session.session_id, [{ file_id: "fl_missing" }, { file_id: fileIds[0] }, { file_id: bobs[0] }]);
    expect(res.status).toBe(200);
    expect(res.body.data.responses).toEqual([
      { data: null, error: { error: { error_code: 404, message: "file 'fl_missing' not found", stack_trace: "" } } },
      { data: expect.objectContaining({ file_id: fileIds[0] }), error: null },
      { data: null, error: { error: { error_code: 404, message: `file '${bobs[0]}' not found`, stack_trace: "" } } },
    ]);
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}/files`)).body.data.total_count).toBe(1);
  });

  test.each([
    [[], "files"],
    [[{ file_id: "F" }, { file_id: "F" }], "files[1].file_id"],
    [[{ file_id: "F", min_file_timestamp_ns: 1 }], "files[0].max_file_timestamp_ns"],
    [[{ file_id: "F", range_max_timestamp_ns: 1 }], "files[0].range_min_timestamp_ns"],
    [[{ file_id: "F", min_file_timestamp_ns: 9, max_file_timestamp_ns: 1 }], "files[0].min_file_timestamp_ns"],
    [[{ file_id: "F", min_file_timestamp_ns: 1, max_file_timestamp_ns: 2, range_min_timestamp_ns: 1, range_max_timestamp_ns: 2 }], "files[0].range_min_timestamp_ns"],
    [[{ file_id: "F", anchor_ns: 0 }], "files[0].anchor_ns"],
    [[{ file_id: "F", anchor_ns: "tomorrow" }], "files[0].anchor_ns"],
    [[{ file_id: "F", anchor_ns: true }], "files[0].anchor_ns"],
    [[{ file_id: "F", anchor_ns: 2, min_file_timestamp_ns: 0, max_file_timestamp_ns: "9223372036854775806" }], "files[0].max_file_timestamp_ns"],
    [[{ file_id: "F", data_range: [5] }], "files[0].data_range"],
    [[{ file_id: "F", data_range: [5, 5] }], "files[0].data_range"],
    [[{ file_id: "F", data_range: [-1, 5] }], "files[0].data_range"],
    [[{ file_id: "F", topics: [{ topic_name: "/imu" }] }], "files[0].topics"],
    [[{ file_id: "" }], "files[0].file_id"],
  ])("a malformed request (%j) is a 400 naming %s and adds nothing", async (files, field) => {
    const { fileIds } = await datasetWithFiles(alice.client, ["a.txt"]);
    const session = await createSession(alice.client);
    const body = JSON.parse(JSON.stringify(files).replaceAll('"F"', JSON.stringify(fileIds[0])));
    expectBadRequest(await addFiles(alice.client, session.session_id, body), field);
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}/files`)).body.data.total_count).toBe(0);
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}`)).body.data).toEqual(session);
  });

  test("removes files with a batch reply (a file the session lacks is refused on its own); bounds are recomputed", async () => {
    const { fileIds } = await datasetWithFiles(alice.client, ["a.txt", "b.txt"]);
    const session = await createSession(alice.client);
    await addFiles(alice.client, session.session_id, [
      { file_id: fileIds[0], range_min_timestamp_ns: 100, range_max_timestamp_ns: 200 },
      { file_id: fileIds[1], range_min_timestamp_ns: 150, range_max_timestamp_ns: 900 },
    ]);
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}`)).body.data).toMatchObject({ min_timestamp_ns: 100, max_timestamp_ns: 900 });
    const res = await alice.client.delete(`/v1/sessions/id/${session.session_id}/files`, { file_ids: [fileIds[1], "fl_other"] });
    expect(res.body.data.responses).toEqual([
      { data: fileIds[1], error: null },
      { data: null, error: { error: { error_code: 404, message: `file 'fl_other' is not a file of session '${session.session_id}'`, stack_trace: "" } } },
    ]);
    expect(res.body.data.session).toMatchObject({ min_timestamp_ns: 100, max_timestamp_ns: 200 });
    expectBadRequest(await alice.client.delete(`/v1/sessions/id/${session.session_id}/files`, { file_ids: [] }), "file_ids");
    expectBadRequest(await alice.client.delete(`/v1/sessions/id/${session.session_id}/files`, { file_ids: ["a", "a"] }), "file_ids[1]");
  });

  test("a dataset's sessions are those holding one of its files", async () => {
    const { datasetId, fileIds } = await datasetWithFiles(alice.client, ["a.txt"]);
    const holding = await createSession(alice.client);
    await createSession(alice.client);
    await addFiles(alice.client, holding.session_id, [{ file_id: fileIds[0] }]);
    const page = (await alice.client.get(`/v1/datasets/${datasetId}/sessions`)).body.data;
    expect(ids(page)).toEqual([holding.session_id]);
    expect(page.total_count).toBe(1);
  });
});

describe("set and clear the unix offset", () => {
  test("anchors every file of the session and recomputes the bounds; clearing returns them, and repeats", async () => {
    const { fileIds } = await datasetWithFiles(alice.client, ["a.txt", "b.txt"]);
    const session = await createSession(alice.client);
    await addFiles(alice.client, session.session_id, [
      { file_id: fileIds[0], min_file_timestamp_ns: 5, max_file_timestamp_ns: 10 },
      { file_id: fileIds[1], min_file_timestamp_ns: 7, max_file_timestamp_ns: 30 },
    ]);
    const path = `/v1/sessions/id/${session.session_id}/unix-offset`;
    expect((await alice.client.post(path, { unix_epoch_offset_ns: 1_000 })).body.data).toMatchObject({ min_timestamp_ns: 1_005, max_timestamp_ns: 1_030 });
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}/files`)).body.data.items.map((f: any) => f.unix_epoch_offset_ns)).toEqual([1_000, 1_000]);
    expect((await alice.client.post(path, { unix_epoch_offset_ns: 1_000 })).body.data).toMatchObject({ min_timestamp_ns: 1_005 });
    expect((await alice.client.delete(path)).body.data).toMatchObject({ min_timestamp_ns: 5, max_timestamp_ns: 30 });
    expect((await alice.client.delete(path)).body.data).toMatchObject({ min_timestamp_ns: 5, max_timestamp_ns: 30 });
  });

  test("a session without time data, or with several anchors, or an offset out of range, is a 400 that changes nothing", async () => {
    const { fileIds } = await datasetWithFiles(alice.client, ["a.txt", "b.txt"]);
    const empty = await createSession(alice.client);
    expectError(await alice.client.post(`/v1/sessions/id/${empty.session_id}/unix-offset`, { unix_epoch_offset_ns: 5 }), 400, `session '${empty.session_id}' has no time data to anchor (no file with a window)`);
    const mixed = await createSession(alice.client);
    await addFiles(alice.client, mixed.session_id, [
      { file_id: fileIds[0], anchor_ns: 100, min_file_timestamp_ns: 0, max_file_timestamp_ns: 1 },
      { file_id: fileIds[1], anchor_ns: 200, min_file_timestamp_ns: 0, max_file_timestamp_ns: 1 },
    ]);
    const before = (await alice.client.get(`/v1/sessions/id/${mixed.session_id}`)).body.data;
    expectError(await alice.client.post(`/v1/sessions/id/${mixed.session_id}/unix-offset`, { unix_epoch_offset_ns: 5 }), 400, `session '${mixed.session_id}' carries 2 distinct anchors; anchor its files one at a time`);
    expectBadRequest(await alice.client.post(`/v1/sessions/id/${mixed.session_id}/unix-offset`, { unix_epoch_offset_ns: 0 }), "unix_epoch_offset_ns");
    expectBadRequest(await alice.client.post(`/v1/sessions/id/${mixed.session_id}/unix-offset`, {}), "unix_epoch_offset_ns");
    expect((await alice.client.get(`/v1/sessions/id/${mixed.session_id}`)).body.data).toEqual(before);
    const high = await createSession(alice.client);
    await addFiles(alice.client, high.session_id, [{ file_id: fileIds[0], min_file_timestamp_ns: 0, max_file_timestamp_ns: "9223372036854775000" }]);
    expectBadRequest(await alice.client.post(`/v1/sessions/id/${high.session_id}/unix-offset`, { unix_epoch_offset_ns: 1_000 }), "unix_epoch_offset_ns");
    expectError(await bob.client.delete(`/v1/sessions/id/${high.session_id}/unix-offset`), 404, `session '${high.session_id}' not found`);
  });
});

describe("create_session_if_not_exists", () => {
  test("answers the oldest session the query matches, or creates one", async () => {
    const tag = unique("tag");
    const created = await alice.client.post("/v1/sessions/create_if_not_exists", { match_roboql_query: `tags CONTAINS '${tag}'`, create_request: { name: "first", tags: [tag] } });
    expect(created.body.data).toMatchObject({ name: "first", tags: [tag] });
    const again = await alice.client.post("/v1/sessions/create_if_not_exists", { match_roboql_query: `tags CONTAINS '${tag}'`, create_request: { name: "second", tags: [tag] } });
    expect(again.body.data.session_id).toBe(created.body.data.session_id);
    expectBadRequest(await alice.client.post("/v1/sessions/create_if_not_exists", { match_roboql_query: "name = ", create_request: {} }), "match_roboql_query");
    expectBadRequest(await alice.client.post("/v1/sessions/create_if_not_exists", { match_roboql_query: "name = 'x'", create_request: { completion_policy: { inactivity_minutes: 0 } } }), "create_request.completion_policy.inactivity_minutes");
  });
});

describe("another org", () => {
  test("sees nothing of a session: 404s, empty listings, and changes nothing", async () => {
    const device = await createDevice(alice.client, { device_id: unique("robot") });
    const { datasetId, fileIds } = await datasetWithFiles(alice.client, ["a.txt"]);
    const session = await createSession(alice.client, { device_ids: [device.device_id] });
    await addFiles(alice.client, session.session_id, [{ file_id: fileIds[0] }]);
    const before = (await alice.client.get(`/v1/sessions/id/${session.session_id}`)).body.data;
    const missing = `session '${session.session_id}' not found`;
    const path = `/v1/sessions/id/${session.session_id}`;
    expectError(await bob.client.get(path), 404, missing);
    expectError(await bob.client.put(path, { name: "mine" }), 404, missing);
    expectError(await bob.client.post(`${path}/complete`), 404, missing);
    expectError(await bob.client.get(`${path}/files`), 404, missing);
    expectError(await bob.client.get(`${path}/devices`), 404, missing);
    expectError(await bob.client.delete(`${path}/files`, { file_ids: [fileIds[0]] }), 404, missing);
    expectError(await bob.client.delete(path), 404, missing);
    expect(ids((await bob.client.get("/v1/sessions")).body.data)).not.toContain(session.session_id);
    expectError(await bob.client.get(`/v1/devices/id/${device.device_id}/sessions`), 404, `device '${device.device_id}' not found`);
    expectError(await bob.client.get(`/v1/datasets/${datasetId}/sessions`), 404, `dataset '${datasetId}' not found`);
    expect((await bob.client.post("/v1/sessions/ingestion/summaries", { session_ids: [session.session_id] })).body.data).toEqual({ summaries: [] });
    expect((await alice.client.get(path)).body.data).toEqual(before);
  });
});

describe("deleting what sessions hold", () => {
  test("a deleted file leaves its sessions; a deleted device leaves its sessions' devices; the sessions stay", async () => {
    const device = await createDevice(alice.client, { device_id: unique("robot") });
    const { fileIds } = await datasetWithFiles(alice.client, ["a.txt", "b.txt"]);
    const session = await createSession(alice.client, { device_ids: [device.device_id] });
    await addFiles(alice.client, session.session_id, [
      { file_id: fileIds[0], range_min_timestamp_ns: 1, range_max_timestamp_ns: 2 },
      { file_id: fileIds[1], range_min_timestamp_ns: 5, range_max_timestamp_ns: 6 },
    ]);
    expect((await alice.client.delete(`/v1/files/${fileIds[0]}`)).status).toBe(200);
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}/files`)).body.data.items.map((f: any) => f.file_id)).toEqual([fileIds[1]]);
    expect((await alice.client.delete(`/v1/devices/id/${device.device_id}`)).status).toBe(200);
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}/devices`)).body.data).toEqual({ items: [], next_token: null, total_count: 0 });
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}`)).status).toBe(200);
  });

  test("a deleted dataset's files leave their sessions at once and cannot be added again", async () => {
    const { datasetId, fileIds } = await datasetWithFiles(alice.client, ["a.txt"]);
    const session = await createSession(alice.client);
    await addFiles(alice.client, session.session_id, [{ file_id: fileIds[0] }]);
    expect((await alice.client.delete(`/v1/datasets/${datasetId}`)).status).toBe(200);
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}/files`)).body.data.total_count).toBe(0);
    expectError(await alice.client.get(`/v1/datasets/${datasetId}/sessions`), 404, `dataset '${datasetId}' not found`);
    const again = await addFiles(alice.client, session.session_id, [{ file_id: fileIds[0] }]);
    expect(again.body.data.responses[0].error.error.error_code).toBe(404);
  });
});
