import { createDataset, expectBadRequest, startWithTenants, uploadFiles, type ApiClient, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// File topics through the gateway (routes.md rows 125-127, SDK 0.62's `/v1/files/id/{id}/representations`):
// register_file_topics (batch replies in request order, idempotent, refusals decided before any
// write), replace_file_topic_representations (all or nothing, the parquet refusal for envelope
// times) and calibrate_file_timelines (offsets as ns, seconds or ISO text, the epoch and 2**63 - 1
// bounds, unchanged re-statements omitted, selectors), and other orgs seeing nothing.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let datasetId: string;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["file-topics-alice", "file-topics-bob"]);
  datasetId = await createDataset(alice.client, "file-topics");
});
afterAll(() => t?.close());

const q = (text: string) => encodeURIComponent(text);
let counter = 0;

/** Uploads one file and returns its id. */
async function uploadOne(client: ApiClient, dataset: string, path = `log-${++counter}.mcap`): Promise<string> {
  await uploadFiles(client, dataset, { [path]: "bytes" });
  return (await client.get(`/v1/files/record/path/${q(path)}/association/${dataset}`)).body.data.file_id;
}

const SCHEMA = {
  name: "Imu",
  fields: [
    { name: "x", data_type: "float64", canonical_data_type: "number" },
    { path: ["header", "stamp"], data_type: "uint64", canonical_data_type: "timestamp", unit: "ns" },
  ],
};

const declaration = (name: string, extra: Record<string, unknown> = {}) => ({
  topic_name: name,
  topic_schema: SCHEMA,
  timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: 100, max_file_timestamp_ns: 900 }],
  ...extra,
});

const topicsOf = async (fileId: string) => (await alice.client.get(`/v1/topics/association/${q(`file:${fileId}`)}`)).body.data.items;

describe("register_file_topics", () => {
  test("registers each declaration, answers in request order, and the topics read back with paths, representations and times", async () => {
    const fileId = await uploadOne(alice.client, datasetId);
    const res = await alice.client.post(`/v1/files/id/${fileId}/topics`, {
      topics: [
        declaration("/imu", { representations: [{ file_id: fileId, storage_format: "mcap" }], anchor_ns: 1_000_000_000 }),
        declaration("/gps", { timeline_sources: [{ kind: "field", field_path: ["header", "stamp"], min_file_timestamp_ns: 5, max_file_timestamp_ns: 7 }] }),
      ],
    });
    expect(res.status).toBe(200);
    const [imu, gps] = res.body.data.responses;
    const identity = (name: string) => ({
      data: { topic_id: expect.stringMatching(/^tp_/), name, org_id: alice.orgId, created: expect.any(String), created_by: alice.userId, modified: expect.any(String), modified_by: alice.userId },
      error: null,
    });
    expect(res.body.data.responses).toEqual([identity("/imu"), identity("/gps")]);
    const topic = (await alice.client.get(`/v1/topics/id/${imu.data.topic_id}`)).body.data;
    expect(topic).toMatchObject({
      topic_name: "/imu",
      association: { association_id: fileId, association_type: "file" },
      schema_name: "Imu",
      schema_checksum: expect.stringMatching(/^[0-9a-f]{64}$/),
      start_time: 1_000_000_100,
      end_time: 1_000_000_900,
    });
    expect(topic.message_paths.map((p: any) => [p.message_path, p.path_in_schema, p.canonical_data_type])).toEqual([
      ["x", ["x"], "number"],
      ["header.stamp", ["header", "stamp"], "timestamp"],
    ]);
    expect(topic.default_representation).toMatchObject({ storage_format: "mcap", association: { association_id: fileId, association_type: "file" } });
    expect(topic.message_paths.every((p: any) => p.representations.length === 1)).toBe(true);
    expect((await alice.client.get(`/v1/topics/id/${gps.data.topic_id}`)).body.data).toMatchObject({ start_time: 5, end_time: 7 });
  });

  test("re-declaring the same slice reuses what the first registered", async () => {
    const fileId = await uploadOne(alice.client, datasetId);
    const body = { topics: [declaration("/imu")] };
    const first = (await alice.client.post(`/v1/files/id/${fileId}/topics`, body)).body.data.responses[0].data;
    const again = (await alice.client.post(`/v1/files/id/${fileId}/topics`, body)).body.data.responses[0].data;
    expect(again.topic_id).toBe(first.topic_id);
    const [topic] = await topicsOf(fileId);
    expect(topic.message_paths).toHaveLength(2);
  });

  test("a malformed request is a 400 naming the field and registers nothing", async () => {
    const fileId = await uploadOne(alice.client, datasetId);
    const post = (body: unknown) => alice.client.post(`/v1/files/id/${fileId}/topics`, body);
    expectBadRequest(await post({ topics: [] }), "topics");
    expectBadRequest(await post({ topics: Array.from({ length: 501 }, (_, i) => declaration(`/t${i}`)) }), "topics");
    expectBadRequest(await post({ topics: [declaration("/ok"), declaration("")] }), "topics[1].topic_name");
    expectBadRequest(await post({ topics: [declaration("/ok"), declaration("/ok")] }), "topics[1]");
    expectBadRequest(await post({ topics: [declaration("/a", { timeline_sources: [{ kind: "sundial", min_file_timestamp_ns: 0, max_file_timestamp_ns: 1 }] })] }), "topics[0].timeline_sources[0].kind");
    expectBadRequest(await post({ topics: [declaration("/a", { timeline_sources: [{ kind: "field", field_path: ["nope"], min_file_timestamp_ns: 0, max_file_timestamp_ns: 1 }] })] }), "topics[0].timeline_sources[0].field_path");
    expectBadRequest(await post({ topics: [declaration("/a", { timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: 9, max_file_timestamp_ns: 1 }] })] }), "topics[0].timeline_sources[0].min_file_timestamp_ns");
    expectBadRequest(await post({ topics: [declaration("/a", { anchor_ns: 0 })] }), "topics[0].anchor_ns");
    expectBadRequest(await post({ topics: [declaration("/a", { anchor_ns: "yesterday" })] }), "topics[0].anchor_ns");
    expectBadRequest(await post({ topics: [declaration("/a", { data_range: [5, 5] })] }), "topics[0].data_range");
    expectBadRequest(await post({ topics: [declaration("/a", { representations: [{ file_id: fileId, storage_format: "csv" }] })] }), "topics[0].representations[0].storage_format");
    expect(await topicsOf(fileId)).toEqual([]);
  });

  test("anchors as seconds and ISO text land on the same nanosecond", async () => {
    const fileId = await uploadOne(alice.client, datasetId);
    const res = await alice.client.post(`/v1/files/id/${fileId}/topics`, {
      topics: [declaration("/s", { anchor_ns: "1700000000.5" }), declaration("/iso", { anchor_ns: "2023-11-14T22:13:20.500000000Z", data_range: [0, 10] })],
    });
    expect(res.status).toBe(200);
    const times = (await topicsOf(fileId)).map((x: any) => [x.topic_name, x.start_time]).sort();
    expect(times).toEqual([
      ["/iso", 1_700_000_000_500_000_100],
      ["/s", 1_700_000_000_500_000_100],
    ]);
  });

  test("an unknown file, or a representation file of another org, is a 404 and registers nothing", async () => {
    const fileId = await uploadOne(alice.client, datasetId);
    const bobsFile = await uploadOne(bob.client, await createDataset(bob.client, "bobs"));
    expect((await alice.client.post("/v1/files/id/fl_missing/topics", { topics: [declaration("/a")] })).status).toBe(404);
    const foreign = await alice.client.post(`/v1/files/id/${fileId}/topics`, { topics: [declaration("/a"), declaration("/b", { representations: [{ file_id: bobsFile, storage_format: "mcap" }] })] });
    expect(foreign.status).toBe(404);
    expect(await topicsOf(fileId)).toEqual([]);
    expect((await bob.client.post(`/v1/files/id/${fileId}/topics`, { topics: [declaration("/a")] })).status).toBe(404);
  });

  test("stating is_default_for_reads needs topic edit access in the org (401 before any write); an org admin may", async () => {
    const fileId = await uploadOne(alice.client, datasetId);
    const body = { topics: [declaration("/a"), declaration("/d", { timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: 1, max_file_timestamp_ns: 2, is_default_for_reads: true }] })] };
    expect((await alice.client.post(`/v1/files/id/${fileId}/topics`, body)).status).toBe(401);
    expect(await topicsOf(fileId)).toEqual([]);
    expect((await t.admin.post(`/v1/files/id/${fileId}/topics`, body, { "X-Service-Org-Id": alice.orgId })).status).toBe(200);
    expect((await topicsOf(fileId)).map((x: any) => x.topic_name).sort()).toEqual(["/a", "/d"]);
  });
});

describe("replace_file_topic_representations", () => {
  test("each listed topic ends with exactly the listed representations; unlisted topics keep theirs (both paths)", async () => {
    const fileId = await uploadOne(alice.client, datasetId);
    const other = await uploadOne(alice.client, datasetId);
    const parquet = await uploadOne(alice.client, datasetId, `x-${++counter}.parquet`);
    const rep = (id: string, format = "mcap") => ({ file_id: id, storage_format: format });
    await alice.client.post(`/v1/files/id/${fileId}/topics`, {
      topics: [
        declaration("/a", { representations: [rep(fileId)] }),
        declaration("/b", { representations: [rep(fileId)], timeline_sources: [{ kind: "field", field_path: ["header", "stamp"], min_file_timestamp_ns: 0, max_file_timestamp_ns: 1 }] }),
      ],
    });
    const put = await alice.client.put(`/v1/files/id/${fileId}/topics/representations`, { topics: [{ topic_name: "/b", representations: [rep(other), { ...rep(parquet, "parquet"), field_path: ["x"] }] }] });
    expect({ status: put.status, body: put.body }).toEqual({ status: 200, body: { data: null } });
    const byName = Object.fromEntries((await topicsOf(fileId)).map((x: any) => [x.topic_name, x]));
    const reps = (x: any) => (x.message_paths as any[]).map((p) => p.representations.map((r: any) => [r.association.association_id, r.storage_format]));
    expect(reps(byName["/a"])).toEqual([[[fileId, "mcap"]], [[fileId, "mcap"]]]);
    expect(reps(byName["/b"])).toEqual([[[other, "mcap"], [parquet, "parquet"]], [[other, "mcap"]]]);
    // SDK 0.62's path; an empty list clears.
    expect((await alice.client.put(`/v1/files/id/${fileId}/representations`, { topics: [{ topic_name: "/a", representations: [] }] })).status).toBe(200);
    const cleared = (await topicsOf(fileId)).find((x: any) => x.topic_name === "/a");
    expect(cleared.default_representation).toBeNull();
    expect(reps(cleared)).toEqual([[], []]);
  });

  test("parquet for data timed by message log or publish time is a 400; an unknown topic a 404; nothing changes", async () => {
    const fileId = await uploadOne(alice.client, datasetId);
    await alice.client.post(`/v1/files/id/${fileId}/topics`, { topics: [declaration("/a", { representations: [{ file_id: fileId, storage_format: "mcap" }] }), declaration("/b")] });
    const before = await topicsOf(fileId);
    const put = (body: unknown) => alice.client.put(`/v1/files/id/${fileId}/topics/representations`, body);
    expectBadRequest(await put({ topics: [{ topic_name: "/b", representations: [] }, { topic_name: "/a", representations: [{ file_id: fileId, storage_format: "parquet" }] }] }), "topics[1].representations[0].storage_format");
    expect((await put({ topics: [{ topic_name: "/b", representations: [] }, { topic_name: "/nope", representations: [] }] })).status).toBe(404);
    expectBadRequest(await put({ topics: [] }), "topics");
    expect((await bob.client.put(`/v1/files/id/${fileId}/topics/representations`, { topics: [{ topic_name: "/a", representations: [] }] })).status).toBe(404);
    expect(await topicsOf(fileId)).toEqual(before);
  });
});

describe("calibrate_file_timelines", () => {
  async function registered() {
    const fileId = await uploadOne(alice.client, datasetId);
    await alice.client.post(`/v1/files/id/${fileId}/topics`, {
      topics: [
        declaration("/a", { timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: 100, max_file_timestamp_ns: 900 }, { kind: "mcap_publish_time", min_file_timestamp_ns: 50, max_file_timestamp_ns: 950 }] }),
        declaration("/b"),
      ],
    });
    return fileId;
  }
  const calibrate = (fileId: string, offsets: unknown, client = alice.client) => client.post(`/v1/files/id/${fileId}/timeline-offsets`, { offsets });

  test("applies an offset to every extent, returns the changed ones, and moves topic times; a re-statement returns []", async () => {
    const fileId = await registered();
    const res = await calibrate(fileId, [{ unix_epoch_offset_ns: 1_000 }]);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(3);
    expect(res.body.data[0]).toEqual({
      timeline_extent_id: expect.any(String),
      timeline_source_id: expect.any(String),
      topic_part_id: expect.stringMatching(/^tpp_/),
      org_id: alice.orgId,
      min_timestamp: expect.any(Number),
      max_timestamp: expect.any(Number),
      unix_epoch_offset_ns: 1_000,
      created: expect.any(String),
      created_by: alice.userId,
      modified: expect.any(String),
      modified_by: alice.userId,
    });
    const a = (await topicsOf(fileId)).find((x: any) => x.topic_name === "/a");
    expect([a.start_time, a.end_time]).toEqual([1_050, 1_950]);
    expect((await calibrate(fileId, [{ unix_epoch_offset_ns: 1_000 }])).body.data).toEqual([]);
  });

  test("selectors narrow by topic and source; later entries win; seconds and ISO text are accepted", async () => {
    const fileId = await registered();
    const res = await calibrate(fileId, [
      { unix_epoch_offset_ns: "1.5", topic_name: "/a" },
      { unix_epoch_offset_ns: "1970-01-01T00:00:02Z", topic_name: "/a", timeline_source_name: "message_publish_time" },
      { unix_epoch_offset_ns: 7, topic_name: "/nothing-here" },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.map((x: any) => x.unix_epoch_offset_ns).sort()).toEqual([1_500_000_000, 2_000_000_000]);
    const b = (await topicsOf(fileId)).find((x: any) => x.topic_name === "/b");
    expect([b.start_time, b.end_time]).toEqual([100, 900]);
  });

  test("refusals: empty 400, out of bounds 400 writing nothing, nothing reached or no topic data 404, another org 404", async () => {
    const fileId = await registered();
    expectBadRequest(await calibrate(fileId, []), "offsets");
    expectBadRequest(await calibrate(fileId, [{ unix_epoch_offset_ns: -1 }]), "offsets[0].unix_epoch_offset_ns");
    expectBadRequest(await calibrate(fileId, [{ unix_epoch_offset_ns: "9223372036854775807" }]), "offsets[0].unix_epoch_offset_ns");
    // Within 2**63 - 1 itself, but the latest extent (950) would pass it.
    expectBadRequest(await calibrate(fileId, [{ unix_epoch_offset_ns: 5 }, { unix_epoch_offset_ns: "9223372036.854775", topic_name: "/a" }]), "offsets[1].unix_epoch_offset_ns");
    expect((await calibrate(fileId, [{ unix_epoch_offset_ns: 5, topic_name: "/zzz" }])).status).toBe(404);
    expect((await calibrate(await uploadOne(alice.client, datasetId), [{ unix_epoch_offset_ns: 5 }])).status).toBe(404);
    expect((await calibrate("fl_missing", [{ unix_epoch_offset_ns: 5 }])).status).toBe(404);
    expect((await calibrate(fileId, [{ unix_epoch_offset_ns: 5 }], bob.client)).status).toBe(404);
    const a = (await topicsOf(fileId)).find((x: any) => x.topic_name === "/a");
    expect([a.start_time, a.end_time]).toEqual([50, 950]);
  });
});
