import { createDataset, createDevice, expectBadRequest, expectError, startWithTenants, uploadFiles, type ApiClient, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// The /v2/topics routes of SDK 0.62 through the gateway (sdk-0.62-routes.md rows 47-50): a topic's
// identity, its content-addressed schema and the schema's fields, resolve_read_plan (window,
// restrictions, projection, representation selectors, timeline sources) and the session-scoped
// unix offsets. Another org's caller sees nothing; bad input is a 400 naming the field and writes nothing.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let datasetId: string;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["topics-v2-alice", "topics-v2-bob"]);
  datasetId = await createDataset(alice.client, "topics-v2");
});
afterAll(() => t?.close());

const q = encodeURIComponent;
let counter = 0;

async function uploadOne(client: ApiClient = alice.client, dataset = datasetId): Promise<{ fileId: string; size: number }> {
  const path = `log-${++counter}.mcap`;
  await uploadFiles(client, dataset, { [path]: `bytes-${counter}` });
  const file = (await client.get(`/v1/files/record/path/${q(path)}/association/${dataset}`)).body.data;
  return { fileId: file.file_id, size: Number(file.size) };
}

const FIELDS = [
  { name: "x", path: ["x"], data_type: "float64", canonical_data_type: "number" },
  { name: "pose", path: ["pose"], data_type: "object", canonical_data_type: "object" },
  { name: "z", path: ["pose", "z"], data_type: "float64", canonical_data_type: "number" },
  { name: "stamp", path: ["stamp"], data_type: "int64", canonical_data_type: "number" },
];

/** Registers `/imu` on the file over [min, max] of its own time, with the file as its mcap representation; returns the topic id. */
async function register(fileId: string, min: number, max: number, extra: Record<string, unknown> = {}, name = "/imu"): Promise<string> {
  const res = await alice.client.post(`/v1/files/id/${fileId}/topics`, {
    topics: [
      {
        topic_name: name,
        topic_schema: { name: "Imu", fields: FIELDS },
        timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: min, max_file_timestamp_ns: max }],
        representations: [{ file_id: fileId, storage_format: "mcap" }],
        ...extra,
      },
    ],
  });
  expect(res.status).toBe(200);
  return res.body.data.responses[0].data.topic_id;
}

async function newSession(files: unknown[]): Promise<string> {
  const session = (await alice.client.post("/v1/sessions", { name: `s-${++counter}` })).body.data;
  if (files.length > 0) expect((await alice.client.post(`/v1/sessions/id/${session.session_id}/files`, { files })).status).toBe(200);
  return session.session_id;
}

const plan = (topicId: string, body: unknown, client = alice.client) => client.post(`/v2/topics/id/${topicId}/read-plan`, body);
const checksumOf = async (topicId: string) => (await alice.client.get(`/v1/topics/id/${topicId}`)).body.data.schema_checksum as string;

describe("GET /v2/topics/id/{topic_id}", () => {
  test("answers the topic's identity record; another org's caller and an unknown id get a 404", async () => {
    const { fileId } = await uploadOne();
    const topicId = await register(fileId, 10, 20);
    const res = await alice.client.get(`/v2/topics/id/${topicId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      topic_id: topicId,
      name: "/imu",
      org_id: alice.orgId,
      created: expect.any(String),
      created_by: alice.userId,
      modified: expect.any(String),
      modified_by: alice.userId,
    });
    expectError(await bob.client.get(`/v2/topics/id/${topicId}`), 404, `topic '${topicId}' not found`);
    expectError(await alice.client.get("/v2/topics/id/tp_none"), 404, "topic 'tp_none' not found");
  });
});

describe("GET /v2/topics/schema/id/{schema_id}[/fields]", () => {
  test("a topic's schema is sc_ and its checksum; its fields carry ids derived from the schema, shared by topics of the same schema", async () => {
    const [one, two] = [await uploadOne(), await uploadOne()];
    const first = await register(one.fileId, 10, 20);
    const second = await register(two.fileId, 10, 20);
    const checksum = await checksumOf(first);
    expect(await checksumOf(second)).toBe(checksum);
    const schemaId = `sc_${checksum}`;
    const schema = await alice.client.get(`/v2/topics/schema/id/${schemaId}`);
    expect(schema.status).toBe(200);
    expect(schema.body.data).toEqual({
      schema_id: schemaId,
      checksum,
      name: "Imu",
      org_id: alice.orgId,
      created: expect.any(String),
      created_by: alice.userId,
      modified: expect.any(String),
      modified_by: alice.userId,
    });
    const fields = await alice.client.get(`/v2/topics/schema/id/${schemaId}/fields`);
    expect(fields.status).toBe(200);
    expect(fields.body.data.map((f: any) => [f.name, f.path_in_schema, f.data_type, f.canonical_data_type])).toEqual(
      expect.arrayContaining(FIELDS.map((f) => [f.name, f.path, f.data_type, f.canonical_data_type])),
    );
    expect(fields.body.data).toHaveLength(FIELDS.length);
    expect(fields.body.data[0]).toEqual({
      field_id: expect.stringMatching(/^sf_[0-9a-f]{24}$/),
      schema_id: schemaId,
      org_id: alice.orgId,
      name: expect.any(String),
      path_in_schema: expect.any(Array),
      data_type: expect.any(String),
      canonical_data_type: expect.any(String),
      unit: null,
      created: expect.any(String),
      created_by: alice.userId,
      modified: expect.any(String),
      modified_by: alice.userId,
    });
    // The read plan names the same field ids.
    const read = await plan(first, { start_time: 0, end_time: 100, fields_include: [{ path: ["x"] }] });
    const x = fields.body.data.find((f: any) => f.name === "x");
    expect(read.body.data.projection).toEqual({ fields: [{ field_id: x.field_id, path: ["x"] }] });
  });

  test("another org's caller, an unknown schema and a malformed id get a 404", async () => {
    const { fileId } = await uploadOne();
    const schemaId = `sc_${await checksumOf(await register(fileId, 10, 20))}`;
    // The error quotes the id cut short (errors never echo long values).
    const notFound = `schema '${schemaId.slice(0, 64)}...' not found`;
    expectError(await bob.client.get(`/v2/topics/schema/id/${schemaId}`), 404, notFound);
    expectError(await bob.client.get(`/v2/topics/schema/id/${schemaId}/fields`), 404, notFound);
    expectError(await alice.client.get("/v2/topics/schema/id/sc_0000"), 404, "schema 'sc_0000' not found");
    expectError(await alice.client.get("/v2/topics/schema/id/ts_abc"), 404, "schema 'ts_abc' not found");
  });
});

describe("POST /v2/topics/id/{topic_id}/read-plan", () => {
  test("resolves the parts in the window into partitions with their window, offset, timestamp source and scan task", async () => {
    const { fileId, size } = await uploadOne();
    const topicId = await register(fileId, 100, 200, { anchor_ns: 1_000 });
    const checksum = await checksumOf(topicId);
    const res = await plan(topicId, { start_time: 1_150, end_time: 5_000 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      plan_version: 1,
      topic_id: topicId,
      window: { start: 1_150, end: 5_000 },
      schema: { schema_id: `sc_${checksum}`, checksum },
      projection: { all: true },
      partitions: [
        {
          topic_part_id: expect.stringMatching(/^tpp_/),
          time_offset_ns: 1_000,
          window: { start: 1_150, end: 5_000 },
          timestamp: { kind: "message_log_time", field: null, unit: null },
          data_range: null,
          scan_tasks: [{ subtree: null, precedence: 0, format: "mcap", transformations: [], object: { fs_node_id: fileId, size_bytes: size }, topic_name: "/imu" }],
          fs_node_id: fileId,
        },
      ],
    });
  });

  test("a window that misses the data has no partitions and no schema", async () => {
    const { fileId } = await uploadOne();
    const topicId = await register(fileId, 100, 200);
    const res = await plan(topicId, { start_time: 300, end_time: 400 });
    expect(res.body.data).toMatchObject({ window: { start: 300, end: 400 }, schema: null, partitions: [] });
  });

  test("a file, dataset or device restriction lets the bounds default to the topic's data there; a named restriction elsewhere selects nothing", async () => {
    const device = `robot-${++counter}`;
    await createDevice(alice.client, { device_id: device });
    const deviceDataset = (await alice.client.post("/v1/datasets", { name: "device-data", device_id: device })).body.data.dataset_id;
    const { fileId } = await uploadOne(alice.client, deviceDataset);
    const topicId = await register(fileId, 100, 200, { anchor_ns: 50 });
    for (const scope of [{ file_id: fileId }, { dataset_id: deviceDataset }, { device_id: device }]) {
      const res = await plan(topicId, scope);
      expect({ scope, status: res.status, window: res.body.data.window, parts: res.body.data.partitions.length }).toEqual({ scope, status: 200, window: { start: 150, end: 250 }, parts: 1 });
    }
    expect((await plan(topicId, { file_id: fileId, start_time: 200 })).body.data.window).toEqual({ start: 200, end: 250 });
    const other = (await uploadOne()).fileId;
    const elsewhere = await plan(topicId, { file_id: other });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.data).toMatchObject({ window: null, schema: null, partitions: [] });
    expect((await plan(topicId, { dataset_id: datasetId })).body.data.partitions).toEqual([]);
  });

  test("a session restriction reads only the slice it holds, each partition selected within the session's window over its file", async () => {
    const { fileId } = await uploadOne();
    const topicId = await register(fileId, 100, 200, { data_range: [0, 10] });
    await register(fileId, 100, 200, { data_range: [10, 20] });
    const sliced = await newSession([{ file_id: fileId, data_range: [0, 10], min_file_timestamp_ns: 120, max_file_timestamp_ns: 150 }]);
    const res = await plan(topicId, { start_time: 0, end_time: 1_000, session_id: sliced });
    expect(res.status).toBe(200);
    expect(res.body.data.window).toEqual({ start: 0, end: 1_000 });
    expect(res.body.data.partitions.map((p: any) => [p.window, p.data_range])).toEqual([[{ start: 120, end: 150 }, [0, 10]]]);
    const whole = await plan(topicId, { start_time: 0, end_time: 1_000 });
    expect(whole.body.data.partitions.map((p: any) => p.data_range)).toEqual([
      [0, 10],
      [10, 20],
    ]);
    const unrelated = await newSession([{ file_id: (await uploadOne()).fileId }]);
    expect((await plan(topicId, { start_time: 0, end_time: 1_000, session_id: unrelated })).body.data.partitions).toEqual([]);
  });

  test("fields_include and fields_exclude narrow the projection to subtrees, by path or by field id", async () => {
    const { fileId } = await uploadOne();
    const topicId = await register(fileId, 100, 200);
    const fields = (await alice.client.get(`/v2/topics/schema/id/sc_${await checksumOf(topicId)}/fields`)).body.data;
    const id = (name: string) => fields.find((f: any) => f.name === name).field_id;
    const projection = async (body: object) => (await plan(topicId, { start_time: 0, end_time: 300, ...body })).body.data.projection;
    expect(await projection({ fields_include: [{ path: ["pose"] }] })).toEqual({ fields: [{ field_id: id("pose"), path: ["pose"] }, { field_id: id("z"), path: ["pose", "z"] }] });
    expect(await projection({ fields_include: [{ field_id: id("pose") }], fields_exclude: [{ path: ["pose", "z"] }] })).toEqual({ fields: [{ field_id: id("pose"), path: ["pose"] }] });
    expect(await projection({ fields_exclude: [{ path: ["pose"] }, { path: ["stamp"] }] })).toEqual({ fields: [{ field_id: id("x"), path: ["x"] }] });
  });

  test("a representation selector picks a matching representation; one that matches nothing is a 400 naming it", async () => {
    const { fileId } = await uploadOne();
    const topicId = await register(fileId, 100, 200);
    const selected = await plan(topicId, { start_time: 0, end_time: 300, prefer: { default: { storage_format: "mcap", transformations: [] } } });
    expect(selected.body.data.partitions[0].scan_tasks).toHaveLength(1);
    expectBadRequest(await plan(topicId, { start_time: 0, end_time: 300, prefer: { default: { storage_format: "parquet" } } }), "prefer.default");
    expectBadRequest(await plan(topicId, { start_time: 0, end_time: 300, prefer: { default: { transformations: ["downsample"] } } }), "prefer.default");
    const override = await plan(topicId, { start_time: 0, end_time: 300, prefer: { overrides: [{ field: { path: ["pose"] }, selector: { storage_format: "mcap" } }] } });
    expect(override.body.data.partitions[0].scan_tasks.map((s: any) => [s.subtree?.path ?? null, s.precedence])).toEqual([
      [null, 0],
      [["pose"], 2],
    ]);
  });

  test("timeline sources: the named one, else the default, else the only one; several without a default need a name", async () => {
    const { fileId } = await uploadOne();
    const res = await alice.client.post(`/v1/files/id/${fileId}/topics`, {
      topics: [
        {
          topic_name: "/two-clocks",
          topic_schema: { name: "Imu", fields: FIELDS },
          timeline_sources: [
            { kind: "mcap_log_time", min_file_timestamp_ns: 100, max_file_timestamp_ns: 200 },
            { kind: "field", field_path: ["stamp"], min_file_timestamp_ns: 1_000, max_file_timestamp_ns: 2_000 },
          ],
        },
      ],
    });
    const topicId = res.body.data.responses[0].data.topic_id;
    expectBadRequest(await plan(topicId, { start_time: 0, end_time: 5_000 }), "timeline_source_name");
    const byField = await plan(topicId, { start_time: 0, end_time: 5_000, timeline_source_name: "stamp" });
    const fields = (await alice.client.get(`/v2/topics/schema/id/sc_${await checksumOf(topicId)}/fields`)).body.data;
    expect(byField.body.data.partitions[0].timestamp).toEqual({ kind: "schema_field", field: { field_id: fields.find((f: any) => f.name === "stamp").field_id, path: ["stamp"] }, unit: null });
    const byLog = await plan(topicId, { start_time: 0, end_time: 5_000, timeline_source_name: "message_log_time" });
    expect(byLog.body.data.partitions[0].timestamp.kind).toBe("message_log_time");
    expectError(await plan(topicId, { start_time: 0, end_time: 5_000, timeline_source_name: "nope" }), 404, "timeline source of the topic 'nope' not found");
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["no bounds and no file, dataset or device", {}, "start_time"],
    ["no end_time", { start_time: 1 }, "end_time"],
    ["end_time before start_time", { start_time: 10, end_time: 5 }, "end_time"],
    ["a negative start_time", { start_time: -1, end_time: 5 }, "start_time"],
    ["a start_time that is not an integer", { start_time: "soon", end_time: 5 }, "start_time"],
    ["both schema_id and schema_checksum", { start_time: 0, end_time: 5, schema_id: "sc_a", schema_checksum: "a" }, "schema_checksum"],
    ["a schema the topic's data does not follow", { start_time: 0, end_time: 5, schema_id: "sc_other" }, "schema_id"],
    ["both timeline_source_id and timeline_source_name", { start_time: 0, end_time: 5, timeline_source_id: "a", timeline_source_name: "b" }, "timeline_source_name"],
    ["a field address with a path and a field id", { start_time: 0, end_time: 5, fields_include: [{ path: ["x"], field_id: "sf_1" }] }, "fields_include[0]"],
    ["a path naming no field", { start_time: 0, end_time: 5, fields_exclude: [{ path: ["nope"] }] }, "fields_exclude[0].path"],
    ["a field id naming no field", { start_time: 0, end_time: 5, fields_include: [{ field_id: "sf_nope" }] }, "fields_include[0].field_id"],
    ["a transformation that is not a string", { start_time: 0, end_time: 5, prefer: { default: { transformations: [1] } } }, "prefer.default.transformations[0]"],
    ["an oversized session_id", { start_time: 0, end_time: 5, session_id: "s".repeat(5_000) }, "query.session_id"],
  ])("%s is a 400 naming the field", async (_, body, field) => {
    const { fileId } = await uploadOne();
    const topicId = await register(fileId, 100, 200);
    const res = await plan(topicId, body);
    expectBadRequest(res, field);
    expect(res.body.error.message.length).toBeLessThan(300);
  });

  test("another org's caller gets a 404 for the topic; a restriction not of the caller's org is a 404 naming it", async () => {
    const { fileId } = await uploadOne();
    const topicId = await register(fileId, 100, 200);
    expectError(await plan(topicId, { start_time: 0, end_time: 300 }, bob.client), 404, `topic '${topicId}' not found`);
    const bobSession = (await bob.client.post("/v1/sessions", { name: "bob" })).body.data.session_id;
    expectError(await plan(topicId, { start_time: 0, end_time: 300, session_id: bobSession }), 404, `session '${bobSession}' not found`);
    const bobDataset = await createDataset(bob.client, "bob-data");
    expectError(await plan(topicId, { dataset_id: bobDataset }), 404, `dataset '${bobDataset}' not found`);
    expectError(await plan(topicId, { file_id: "fl_none" }), 404, "file 'fl_none' not found");
    expectError(await plan(topicId, { device_id: "nobody" }), 404, "device 'nobody' not found");
  });
});

describe("POST|DELETE /v2/topics/id/{topic_id}/unix-offset", () => {
  const extents = (res: { body: any }) => res.body.data.map((x: any) => [x.min_timestamp, x.max_timestamp, x.unix_epoch_offset_ns]);

  test("anchors the parts of the topic the session holds, returns the extents that changed, and clearing returns them to 0", async () => {
    const { fileId } = await uploadOne();
    const topicId = await register(fileId, 100, 200, { data_range: [0, 10] });
    await register(fileId, 100, 200, { data_range: [10, 20] });
    const sessionId = await newSession([{ file_id: fileId, data_range: [0, 10] }]);
    const path = `/v2/topics/id/${topicId}/unix-offset`;
    const set = await alice.client.post(path, { session_id: sessionId, unix_epoch_offset_ns: 5_000 });
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual([
      {
        timeline_extent_id: expect.any(String),
        timeline_source_id: expect.any(String),
        topic_part_id: expect.stringMatching(/^tpp_/),
        org_id: alice.orgId,
        min_timestamp: 100,
        max_timestamp: 200,
        unix_epoch_offset_ns: 5_000,
        created: expect.any(String),
        created_by: alice.userId,
        modified: expect.any(String),
        modified_by: alice.userId,
      },
    ]);
    // Only the held slice moved; the plan reads it at the anchor; the session's bounds follow.
    const read = await plan(topicId, { start_time: 0, end_time: 10_000 });
    expect(read.body.data.partitions.map((p: any) => [p.data_range, p.time_offset_ns])).toEqual([
      [[10, 20], 0],
      [[0, 10], 5_000],
    ]);
    expect((await alice.client.get(`/v1/sessions/id/${sessionId}`)).body.data).toMatchObject({ min_timestamp_ns: 5_100, max_timestamp_ns: 5_200 });
    expect((await alice.client.post(path, { session_id: sessionId, unix_epoch_offset_ns: 5_000 })).body.data).toEqual([]);
    const cleared = await alice.client.delete(`${path}?session_id=${sessionId}`);
    expect(cleared.status).toBe(200);
    expect(extents(cleared)).toEqual([[100, 200, 0]]);
    expect((await alice.client.delete(`${path}?session_id=${sessionId}`)).body.data).toEqual([]);
  });

  test("bad input is a 400 naming the field, and nothing moves", async () => {
    const { fileId } = await uploadOne();
    const topicId = await register(fileId, 100, 200);
    const sessionId = await newSession([{ file_id: fileId }]);
    const path = `/v2/topics/id/${topicId}/unix-offset`;
    expectBadRequest(await alice.client.post(path, { session_id: sessionId, unix_epoch_offset_ns: 0 }), "unix_epoch_offset_ns");
    expectBadRequest(await alice.client.post(path, { session_id: sessionId, unix_epoch_offset_ns: -5 }), "unix_epoch_offset_ns");
    expectBadRequest(await alice.client.post(path, { session_id: sessionId }), "unix_epoch_offset_ns");
    expectBadRequest(await alice.client.post(path, { unix_epoch_offset_ns: 5 }), "session_id");
    expectBadRequest(await alice.client.post(path, { session_id: sessionId, unix_epoch_offset_ns: "9223372036854775807" }), "unix_epoch_offset_ns");
    expectBadRequest(await alice.client.delete(path), "session_id");
    const read = await plan(topicId, { start_time: 0, end_time: 1_000 });
    expect(read.body.data.partitions.map((p: any) => p.time_offset_ns)).toEqual([0]);
  });

  test("another org's caller, a session holding none of the topic's data and an unknown session get a 404", async () => {
    const { fileId } = await uploadOne();
    const topicId = await register(fileId, 100, 200);
    const sessionId = await newSession([{ file_id: fileId }]);
    const path = `/v2/topics/id/${topicId}/unix-offset`;
    expectError(await bob.client.post(path, { session_id: sessionId, unix_epoch_offset_ns: 5 }), 404, `topic '${topicId}' not found`);
    expectError(await bob.client.delete(`${path}?session_id=${sessionId}`), 404, `topic '${topicId}' not found`);
    const bobTopic = await (async () => {
      const bobDataset = await createDataset(bob.client, "bob-topics");
      const { fileId: bobFile } = await uploadOne(bob.client, bobDataset);
      const res = await bob.client.post(`/v1/files/id/${bobFile}/topics`, {
        topics: [{ topic_name: "/imu", topic_schema: { fields: FIELDS }, timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: 1, max_file_timestamp_ns: 2 }] }],
      });
      return res.body.data.responses[0].data.topic_id as string;
    })();
    // Bob's own topic with Alice's session: the session is not Bob's.
    expectError(await bob.client.post(`/v2/topics/id/${bobTopic}/unix-offset`, { session_id: sessionId, unix_epoch_offset_ns: 5 }), 404, `session '${sessionId}' not found`);
    const empty = await newSession([{ file_id: (await uploadOne()).fileId }]);
    expectError(await alice.client.post(path, { session_id: empty, unix_epoch_offset_ns: 5 }), 404, `data of the topic in session '${empty}' not found`);
    expectError(await alice.client.post(path, { session_id: "se_none", unix_epoch_offset_ns: 5 }), 404, "session 'se_none' not found");
  });
});
