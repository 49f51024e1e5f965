import { createDataset, expectError, startWithTenants, uploadFiles, type ApiClient, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// Sessions and the topics of their files through the gateway: list_session_topics and
// get_session_topic (routes.md rows 158-159; SDK 0.62's Session.list_topics/get_topic: a topic
// once, by name then topic id, only when the session holds some of its data), and session bounds
// following registered topics and calibration (endpoints.md, calibrate_file_timelines rule 5).

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let datasetId: string;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["session-topics-alice", "session-topics-bob"]);
  datasetId = await createDataset(alice.client, "session-topics");
});
afterAll(() => t?.close());

const q = (text: string) => encodeURIComponent(text);
let counter = 0;

async function uploadOne(client: ApiClient = alice.client): Promise<string> {
  const path = `log-${++counter}.mcap`;
  await uploadFiles(client, datasetId, { [path]: "bytes" });
  return (await client.get(`/v1/files/record/path/${q(path)}/association/${datasetId}`)).body.data.file_id;
}

const SCHEMA = { name: "Imu", fields: [{ name: "x", data_type: "float64", canonical_data_type: "number" }] };

/** Registers `name` on the file over [min, max] of its own time, over `dataRange` when given; returns the topic id. */
async function register(fileId: string, name: string, min: number, max: number, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await alice.client.post(`/v1/files/id/${fileId}/topics`, {
    topics: [{ topic_name: name, topic_schema: SCHEMA, timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: min, max_file_timestamp_ns: max }], ...extra }],
  });
  expect(res.status).toBe(200);
  return res.body.data.responses[0].data.topic_id;
}

async function newSession(files: unknown[]): Promise<string> {
  const session = (await alice.client.post("/v1/sessions", { name: `s-${++counter}` })).body.data;
  if (files.length > 0) expect((await alice.client.post(`/v1/sessions/id/${session.session_id}/files`, { files })).status).toBe(200);
  return session.session_id;
}

const sessionOf = async (id: string) => (await alice.client.get(`/v1/sessions/id/${id}`)).body.data;
const topicNames = async (id: string, client = alice.client) => (await client.get(`/v1/sessions/id/${id}/topics`)).body.data.items.map((x: any) => x.name);

describe("list_session_topics and get_session_topic", () => {
  test("lists the topics of the session's files once each, by name, as identity records; other files' topics stay out", async () => {
    const [one, two, other] = [await uploadOne(), await uploadOne(), await uploadOne()];
    const imu = await register(one, "/imu", 10, 20);
    await register(one, "/gps", 10, 20);
    await register(two, "/cam", 30, 40);
    await register(other, "/lidar", 10, 20);
    const sessionId = await newSession([{ file_id: one }, { file_id: two }]);
    const res = await alice.client.get(`/v1/sessions/id/${sessionId}/topics`);
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((x: any) => x.name)).toEqual(["/cam", "/gps", "/imu"]);
    expect(res.body.data.total_count).toBe(3);
    expect(res.body.data.items[2]).toEqual({
      topic_id: imu,
      name: "/imu",
      org_id: alice.orgId,
      created: expect.any(String),
      created_by: alice.userId,
      modified: expect.any(String),
      modified_by: alice.userId,
    });
    const got = await alice.client.get(`/v1/sessions/id/${sessionId}/topics/name/${q("/imu")}`);
    expect(got).toMatchObject({ status: 200, body: { data: { topic_id: imu, name: "/imu" } } });
  });

  test("pages follow next_token in name order", async () => {
    const fileId = await uploadOne();
    for (const name of ["/a", "/b", "/c"]) await register(fileId, name, 1, 2);
    const sessionId = await newSession([{ file_id: fileId }]);
    const first = (await alice.client.get(`/v1/sessions/id/${sessionId}/topics?page_size=2`)).body.data;
    expect(first.items.map((x: any) => x.name)).toEqual(["/a", "/b"]);
    const second = (await alice.client.get(`/v1/sessions/id/${sessionId}/topics?page_size=2&page_token=${q(first.next_token)}`)).body.data;
    expect(second.items.map((x: any) => x.name)).toEqual(["/c"]);
    expect(second.next_token ?? null).toBeNull();
  });

  test("a session holding a slice of a file or a window of its time lists only the topics with data there", async () => {
    const fileId = await uploadOne();
    await register(fileId, "/early", 100, 200, { data_range: [0, 10] });
    await register(fileId, "/late", 100, 200, { data_range: [10, 20] });
    await register(fileId, "/later", 900, 1000, { data_range: [10, 20] });
    expect(await topicNames(await newSession([{ file_id: fileId, data_range: [10, 20] }]))).toEqual(["/late", "/later"]);
    expect(await topicNames(await newSession([{ file_id: fileId, min_file_timestamp_ns: 850, max_file_timestamp_ns: 950 }]))).toEqual(["/later"]);
  });

  test("a topic the session holds no data of, an unknown session and another org's session are 404s", async () => {
    const fileId = await uploadOne();
    await register(fileId, "/imu", 1, 2);
    const sessionId = await newSession([{ file_id: fileId }]);
    expectError(await alice.client.get(`/v1/sessions/id/${sessionId}/topics/name/${q("/nope")}`), 404, "topic of the session '/nope' not found");
    expectError(await alice.client.get(`/v1/sessions/id/se_missing/topics`), 404, "session 'se_missing' not found");
    expectError(await bob.client.get(`/v1/sessions/id/${sessionId}/topics`), 404, `session '${sessionId}' not found`);
    expectError(await bob.client.get(`/v1/sessions/id/${sessionId}/topics/name/${q("/imu")}`), 404, `session '${sessionId}' not found`);
  });

  test("a bad page size is a 400 naming it", async () => {
    const sessionId = await newSession([]);
    const res = await alice.client.get(`/v1/sessions/id/${sessionId}/topics?page_size=-1`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("page_size");
  });
});

describe("session bounds follow the topics of its files", () => {
  test("a file without a window gives the session its topics' extents in session time, on registration and on calibration", async () => {
    const fileId = await uploadOne();
    const sessionId = await newSession([{ file_id: fileId }]);
    expect(await sessionOf(sessionId)).toMatchObject({ min_timestamp_ns: null, max_timestamp_ns: null });
    await register(fileId, "/imu", 100, 200, { anchor_ns: 1_000 });
    await register(fileId, "/gps", 50, 150, { anchor_ns: 1_000 });
    expect(await sessionOf(sessionId)).toMatchObject({ min_timestamp_ns: 1_050, max_timestamp_ns: 1_200 });
    expect((await alice.client.post(`/v1/files/id/${fileId}/timeline-offsets`, { offsets: [{ unix_epoch_offset_ns: 5_000 }] })).status).toBe(200);
    expect(await sessionOf(sessionId)).toMatchObject({ min_timestamp_ns: 5_050, max_timestamp_ns: 5_200 });
  });

  test("registering topics on a file sets the bounds of a session added before them, over its slice only", async () => {
    const fileId = await uploadOne();
    const sessionId = await newSession([{ file_id: fileId, data_range: [0, 10] }]);
    await register(fileId, "/in", 100, 200, { data_range: [0, 10] });
    await register(fileId, "/out", 5, 900, { data_range: [10, 20] });
    expect(await sessionOf(sessionId)).toMatchObject({ min_timestamp_ns: 100, max_timestamp_ns: 200 });
  });

  test("an explicit window moves with a calibration that leaves its slice one offset, and stays when the slice carries several", async () => {
    const fileId = await uploadOne();
    await register(fileId, "/imu", 100, 200);
    await register(fileId, "/gps", 100, 200);
    const sessionId = await newSession([{ file_id: fileId, min_file_timestamp_ns: 120, max_file_timestamp_ns: 180 }]);
    expect(await sessionOf(sessionId)).toMatchObject({ min_timestamp_ns: 120, max_timestamp_ns: 180 });
    await alice.client.post(`/v1/files/id/${fileId}/timeline-offsets`, { offsets: [{ unix_epoch_offset_ns: 1_000 }] });
    expect(await sessionOf(sessionId)).toMatchObject({ min_timestamp_ns: 1_120, max_timestamp_ns: 1_180 });
    await alice.client.post(`/v1/files/id/${fileId}/timeline-offsets`, { offsets: [{ unix_epoch_offset_ns: 3_000, topic_name: "/imu" }] });
    expect(await sessionOf(sessionId)).toMatchObject({ min_timestamp_ns: 1_120, max_timestamp_ns: 1_180 });
  });
});

describe("session anchors follow the one time-reading rule (register_file_topics')", () => {
  test("an anchor given as seconds, as ISO text or as an exact integer past 2**53 anchors the window", async () => {
    const [a, b, c] = [await uploadOne(), await uploadOne(), await uploadOne()];
    const window = { min_file_timestamp_ns: 5, max_file_timestamp_ns: 10 };
    const bounds = async (files: unknown[]) => {
      const id = await newSession(files);
      const session = await sessionOf(id);
      return [session.min_timestamp_ns, session.max_timestamp_ns];
    };
    expect(await bounds([{ file_id: a, anchor_ns: 1.5, ...window }])).toEqual([1_500_000_005, 1_500_000_010]);
    expect(await bounds([{ file_id: b, anchor_ns: "2023-11-14T22:13:20Z", ...window }])).toEqual([1_700_000_000_000_000_005, 1_700_000_000_000_000_010]);
    const session = (await alice.client.post("/v1/sessions", { name: "exact" })).body.data;
    const body = `{"files": [{"file_id": "${c}", "anchor_ns": 1700000000123456789, "min_file_timestamp_ns": 0, "max_file_timestamp_ns": 1}]}`;
    expect((await alice.client.raw("POST", `/v1/sessions/id/${session.session_id}/files`, body)).status).toBe(200);
    const read = await fetch(`${t.url}/v1/sessions/id/${session.session_id}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(await read.text()).toContain('"min_timestamp_ns":1700000000123456789');
  });
});
