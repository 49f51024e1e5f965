import { createDataset, expectBadRequest, expectError, startWithTenants, uploadFiles, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// Topics through the gateway (routes.md rows 88-90 and 128-141, and SDK 0.62's id and time-bounds
// routes): the records, message paths and their changesets, representations, listings with
// keyset tokens, bad input (a 400 naming the field, nothing written) and isolation between orgs.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let datasetId: string;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["topics-alice", "topics-bob"]);
  datasetId = await createDataset(alice.client, "topics");
});
afterAll(() => t?.close());

const q = (text: string) => encodeURIComponent(text);
let counter = 0;
const unique = (name: string) => `${name}-${++counter}`;
const assoc = (id = datasetId) => q(`dataset:${id}`);

/** Uploads one file to a dataset and returns its id. */
async function uploadOne(dataset: string, path: string): Promise<string> {
  await uploadFiles(alice.client, dataset, { [path]: "bytes" });
  return (await alice.client.get(`/v1/files/record/path/${q(path)}/association/${dataset}`)).body.data.file_id;
}

async function createTopic(body: Record<string, unknown> = {}) {
  const res = await alice.client.post("/v1/topics", { association: { association_id: datasetId, association_type: "dataset" }, topic_name: unique("/imu"), ...body });
  expect(res.status).toBe(200);
  return res.body.data;
}

const SPEED = { message_path: "speed", data_type: "float64", canonical_data_type: "number" };

describe("create_topic and reads", () => {
  test("creates a topic with the documented fields, exact nanosecond times and its message paths", async () => {
    const res = await alice.client.post("/v1/topics", {
      association: { association_id: datasetId, association_type: "dataset" },
      topic_name: "/gps fix",
      start_time: 1722870127,
      end_time: 1722870999,
      message_count: 12,
      metadata: { rate: 10 },
      schema_name: "sensor_msgs/NavSatFix",
      schema_checksum: "abc",
      message_paths: [{ ...SPEED, metadata: { unit: "m/s" } }, { message_path: "pose.x", data_type: "float32", canonical_data_type: "number" }],
    });
    expect(res.status).toBe(200);
    const topic = res.body.data;
    expect(topic).toEqual({
      topic_id: expect.stringMatching(/^tp_/),
      topic_name: "/gps fix",
      org_id: alice.orgId,
      association: { association_id: datasetId, association_type: "dataset", association_version: null },
      created: expect.any(String),
      created_by: alice.userId,
      modified: expect.any(String),
      modified_by: alice.userId,
      default_representation: null,
      start_time: 1722870127,
      end_time: 1722870999,
      message_count: 12,
      message_paths: [
        expect.objectContaining({ message_path: "speed", source_path: "speed", path_in_schema: ["speed"], data_type: "float64", canonical_data_type: "number", metadata: { unit: "m/s" }, representations: [] }),
        expect.objectContaining({ message_path: "pose.x", path_in_schema: ["pose", "x"], topic_id: topic.topic_id, org_id: alice.orgId, message_path_id: expect.stringMatching(/^mp_/) }),
      ],
      metadata: { rate: 10 },
      schema_checksum: "abc",
      schema_name: "sensor_msgs/NavSatFix",
      schema_id: null,
    });
    // By id, and by association and name ("plus" encoding: `+` is a space).
    expect((await alice.client.get(`/v1/topics/id/${topic.topic_id}`)).body.data).toEqual(topic);
    expect((await alice.client.get(`/v1/topics/association/${assoc()}/name/%2Fgps+fix`)).body.data).toEqual(topic);
    const path = topic.message_paths[0];
    expect((await alice.client.get(`/v1/topics/message-path/id/${path.message_path_id}`)).body.data).toEqual(path);
  });

  test("start and end times are exact integers of nanoseconds up to 2**63 - 1", async () => {
    const body = `{"association":{"association_id":"${datasetId}"},"topic_name":"exact","start_time":1722870127699468923,"end_time":9223372036854775807}`;
    const res = await alice.client.raw("POST", "/v1/topics", body);
    expect(res.status).toBe(200);
    const text = JSON.stringify(res.body);
    const read = await fetch(`${t.url}/v1/topics/id/${res.body.data.topic_id}`, { headers: { authorization: `Bearer ${alice.token}` } });
    const raw = await read.text();
    expect(text).toContain('"topic_name":"exact"');
    expect(raw).toContain('"start_time":1722870127699468923');
    expect(raw).toContain('"end_time":9223372036854775807');
  });

  test("a second topic of the same name on the association is a 409, another name is fine", async () => {
    const topic = await createTopic();
    const again = await alice.client.post("/v1/topics", { association: { association_id: datasetId }, topic_name: topic.topic_name });
    expect(again.status).toBe(409);
  });

  test("bad input is a 400 naming the field and writes nothing", async () => {
    const count = async () => (await alice.client.get(`/v1/datasets/${datasetId}/topics/count`)).body.data;
    const before = await count();
    const base = { association: { association_id: datasetId, association_type: "dataset" }, topic_name: unique("bad") };
    expectBadRequest(await alice.client.post("/v1/topics", { ...base, topic_name: "" }), "topic_name");
    expectBadRequest(await alice.client.post("/v1/topics", { ...base, association: { association_id: datasetId, association_type: "robot" } }), "association.association_type");
    expectBadRequest(await alice.client.post("/v1/topics", { ...base, message_paths: [{ ...SPEED, canonical_data_type: "nope" }] }), "message_paths[0].canonical_data_type");
    expectBadRequest(await alice.client.post("/v1/topics", { ...base, message_paths: [SPEED, SPEED] }), "message_paths[1].message_path");
    expectBadRequest(await alice.client.post("/v1/topics", { ...base, start_time: "soon" }), "start_time");
    expectBadRequest(await alice.client.get(`/v1/topics/association/${q("dataset")}`), "encoded_association");
    expect(await count()).toBe(before);
  });

  test("an unknown association or topic is a 404", async () => {
    expectError(await alice.client.post("/v1/topics", { association: { association_id: "ds_missing" }, topic_name: "x" }), 404, "dataset 'ds_missing' not found");
    expect((await alice.client.get("/v1/topics/id/tp_missing")).status).toBe(404);
    expect((await alice.client.get(`/v1/topics/association/${assoc()}/name/missing`)).status).toBe(404);
  });
});

describe("update_topic", () => {
  test("edits fields, metadata and message paths (delete, update, add) in one call", async () => {
    const topic = await createTopic({ message_paths: [SPEED, { message_path: "a", data_type: "int", canonical_data_type: "number" }], metadata: { keep: 1, drop: 2 } });
    const res = await alice.client.put(`/v1/topics/id/${topic.topic_id}`, {
      end_time: 5,
      schema_name: null,
      metadata_changeset: { put_fields: { "nested.x": 1 }, remove_fields: ["drop"] },
      message_path_changeset: {
        message_paths_to_delete: [{ message_path: "a" }],
        message_paths_to_update: [{ message_path: "speed", canonical_data_type: "string", metadata_changeset: { put_fields: { unit: "kph" } } }],
        message_paths_to_add: [{ message_path: "b.c", data_type: "bool", canonical_data_type: "boolean" }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ end_time: 5, schema_name: null, metadata: { keep: 1, nested: { x: 1 } } });
    expect(res.body.data.message_paths.map((p: any) => [p.message_path, p.canonical_data_type, p.metadata])).toEqual([
      ["speed", "string", { unit: "kph" }],
      ["b.c", "boolean", {}],
    ]);
  });

  test("replace_all leaves exactly the added message paths", async () => {
    const topic = await createTopic({ message_paths: [SPEED] });
    const res = await alice.client.put(`/v1/topics/id/${topic.topic_id}`, {
      message_path_changeset: { replace_all: true, message_paths_to_add: [{ message_path: "only", data_type: "x", canonical_data_type: "unknown" }] },
    });
    expect(res.body.data.message_paths.map((p: any) => p.message_path)).toEqual(["only"]);
  });

  test("a bad changeset is a 400 or 404 and changes nothing", async () => {
    const topic = await createTopic({ message_paths: [SPEED] });
    const bad = await alice.client.put(`/v1/topics/id/${topic.topic_id}`, {
      end_time: 7,
      message_path_changeset: { message_paths_to_delete: [{ message_path: "speed" }], message_paths_to_add: [{ ...SPEED, canonical_data_type: "wrong" }] },
    });
    expectBadRequest(bad, "message_path_changeset.message_paths_to_add[0].canonical_data_type");
    const missing = await alice.client.put(`/v1/topics/id/${topic.topic_id}`, { message_path_changeset: { message_paths_to_update: [{ message_path: "nope" }] } });
    expect(missing.status).toBe(404);
    expect((await alice.client.get(`/v1/topics/id/${topic.topic_id}`)).body.data).toEqual(topic);
  });
});

describe("update_topic times (null clears, as the changeset rules say)", () => {
  test("null clears start and end time, an omitted time stays, and an exact integer past 2**53 keeps every digit", async () => {
    const topic = await createTopic({ start_time: 10, end_time: 20 });
    const exact = "1700000000123456789";
    expect((await alice.client.raw("PUT", `/v1/topics/id/${topic.topic_id}`, `{"end_time": ${exact}}`)).status).toBe(200);
    expect((await alice.client.put(`/v1/topics/id/${topic.topic_id}`, { start_time: null })).body.data).toMatchObject({ start_time: null });
    const read = await fetch(`${t.url}/v1/topics/id/${topic.topic_id}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(await read.text()).toContain(`"end_time":${exact}`);
    expect((await alice.client.put(`/v1/topics/id/${topic.topic_id}`, { end_time: null })).body.data).toMatchObject({ start_time: null, end_time: null });
  });

  test("times read as register_file_topics reads them: seconds and ISO text", async () => {
    const topic = await createTopic();
    const res = await alice.client.put(`/v1/topics/id/${topic.topic_id}`, { start_time: 1.5, end_time: "2023-11-14T22:13:20.5Z" });
    expect(res.body.data).toMatchObject({ start_time: 1_500_000_000, end_time: 1_700_000_000_500_000_000 });
  });

  test("a time that is not one is a 400 naming the field and changes nothing", async () => {
    const topic = await createTopic({ start_time: 10 });
    expectBadRequest(await alice.client.put(`/v1/topics/id/${topic.topic_id}`, { start_time: true }), "start_time");
    expectBadRequest(await alice.client.put(`/v1/topics/id/${topic.topic_id}`, { start_time: -1 }), "start_time");
    expectBadRequest(await alice.client.put(`/v1/topics/id/${topic.topic_id}`, { end_time: "tomorrow" }), "end_time");
    expectBadRequest(await alice.client.raw("PUT", `/v1/topics/id/${topic.topic_id}`, `{"end_time": 9223372036854775808}`), "end_time");
    expect((await alice.client.get(`/v1/topics/id/${topic.topic_id}`)).body.data).toEqual(topic);
  });
});

describe("message paths and representations", () => {
  test("add and update a message path by association and name and by id; a duplicate is a 409", async () => {
    const topic = await createTopic();
    const byName = `/v1/topics/association/${assoc()}/name/${q(topic.topic_name)}/message-path`;
    const added = await alice.client.post(byName, { ...SPEED, metadata: { a: 1 } });
    expect(added.status).toBe(200);
    expect(added.body.data).toMatchObject({ message_path: "speed", topic_id: topic.topic_id, metadata: { a: 1 }, created_by: alice.userId });
    expect((await alice.client.post(`/v1/topics/id/${topic.topic_id}/message-path`, SPEED)).status).toBe(409);
    const updated = await alice.client.put(`/v1/topics/id/${topic.topic_id}/message-path`, { message_path: "speed", data_type: "float32" });
    expect(updated.body.data).toMatchObject({ message_path: "speed", data_type: "float32", canonical_data_type: "number", metadata: { a: 1 } });
    expectBadRequest(await alice.client.post(byName, { ...SPEED, message_path: "other", canonical_data_type: "float" }), "body.canonical_data_type");
  });

  test("representations: a file holding message paths, the default, and the listings by storage format", async () => {
    const fileId = await uploadOne(datasetId, "rep.mcap");
    const topic = await createTopic({ message_paths: [SPEED, { message_path: "b", data_type: "x", canonical_data_type: "unknown" }] });
    const [speed, b] = topic.message_paths;
    const body = (pathId: string) => ({ association: { association_id: fileId, association_type: "file" }, storage_format: "mcap", version: 1, message_path_id: pathId });
    const rep = await alice.client.post(`/v1/topics/id/${topic.topic_id}/message-path/representation`, body(speed.message_path_id));
    expect(rep.status).toBe(200);
    expect(rep.body.data).toEqual({
      representation_id: expect.any(String),
      association: { association_id: fileId, association_type: "file", association_version: null },
      topic_id: topic.topic_id,
      storage_format: "mcap",
      version: 1,
      created: expect.any(String),
      modified: expect.any(String),
      format: null,
      transformations: [],
    });
    // The same representation for a second path joins it (by association and name route).
    const again = await alice.client.post(`/v1/topics/association/${assoc()}/name/${q(topic.topic_name)}/message-path/representation`, body(b.message_path_id));
    expect(again.body.data.representation_id).toBe(rep.body.data.representation_id);
    const def = await alice.client.post(`/v1/topics/id/${topic.topic_id}/representation`, { association: { association_id: fileId }, storage_format: "mcap", version: 1 });
    expect(def.body.data.representation_id).toBe(rep.body.data.representation_id);
    const read = (await alice.client.get(`/v1/topics/id/${topic.topic_id}`)).body.data;
    expect(read.default_representation).toEqual(rep.body.data);
    expect(read.message_paths.map((p: any) => p.representations)).toEqual([[rep.body.data], [rep.body.data]]);
    const listed = (await alice.client.get(`/v1/topics/id/${topic.topic_id}/message-path/representations`)).body.data;
    expect(listed).toEqual([{ representation: rep.body.data, message_paths: read.message_paths }]);
    expect((await alice.client.get(`/v1/topics/id/${topic.topic_id}/message-path/representations/mcap`)).body.data).toEqual(listed);
    expect((await alice.client.get(`/v1/topics/id/${topic.topic_id}/message-path/representations/parquet`)).body.data).toEqual([]);
    expectBadRequest(await alice.client.get(`/v1/topics/id/${topic.topic_id}/message-path/representations/csv`), "storage_format");
    expectBadRequest(await alice.client.post(`/v1/topics/id/${topic.topic_id}/representation`, { association: { association_id: fileId }, storage_format: "csv", version: 1 }), "storage_format");
    // Bob's file cannot back Alice's topic; an unknown message path is a 404.
    expect((await alice.client.post(`/v1/topics/id/${topic.topic_id}/message-path/representation`, { ...body(speed.message_path_id), message_path_id: "mp_missing" })).status).toBe(404);
  });
});

describe("listings, counts and time bounds", () => {
  test("dataset and association listings page newest first with keyset tokens; count, time-range and time-bounds agree", async () => {
    const ds = await createDataset(alice.client, "topic-list");
    const names = ["t1", "t2", "t3"];
    for (const [i, name] of names.entries()) {
      expect((await alice.client.post("/v1/topics", { association: { association_id: ds }, topic_name: name, start_time: 10 + i, end_time: 100 - i })).status).toBe(200);
    }
    const first = (await alice.client.get(`/v1/topics/association/${assoc(ds)}?page_size=2`)).body.data;
    expect(first.items.map((x: any) => x.topic_name)).toEqual(["t3", "t2"]);
    expect(first.total_count).toBe(3);
    const second = (await alice.client.get(`/v1/topics/association/${assoc(ds)}?page_size=2&page_token=${first.next_token}`)).body.data;
    expect(second).toMatchObject({ next_token: null });
    expect(second.items.map((x: any) => x.topic_name)).toEqual(["t1"]);
    expect((await alice.client.get(`/v1/datasets/${ds}/topics`)).body.data.items.map((x: any) => x.topic_name)).toEqual(["t3", "t2", "t1"]);
    expect((await alice.client.get(`/v1/datasets/${ds}/topics/count`)).body.data).toBe(3);
    for (const path of [`/v1/datasets/${ds}/topics/time-range`, `/v1/datasets/${ds}/topics/time-bounds`, `/v1/topics/association/${assoc(ds)}/time-bounds`]) {
      expect((await alice.client.get(path)).body.data).toEqual({ start_time: 10, end_time: 100 });
    }
    const all = (await alice.client.get(`/v1/topics/association/id/${ds}`)).body.data;
    expect(all.results_remaining).toBe(false);
    expect(all.topics.map((x: any) => x.topic_name)).toEqual(["t3", "t2", "t1"]);
    const empty = await createDataset(alice.client, "no-topics");
    expect((await alice.client.get(`/v1/datasets/${empty}/topics/time-bounds`)).body.data).toEqual({ start_time: null, end_time: null });
    expect((await alice.client.get(`/v1/topics/association/${assoc(empty)}`)).body.data).toMatchObject({ items: [], total_count: 0 });
    expectBadRequest(await alice.client.get(`/v1/datasets/${ds}/topics?page_token=garbage`), "page_token");
  });

  test("total_count and the count follow every change: an update, a deletion, a deleted file's topics", async () => {
    const ds = await createDataset(alice.client, "topic-counts");
    const fileId = await uploadOne(ds, "counted.mcap");
    const counts = async () => ({
      dataset: (await alice.client.get(`/v1/topics/association/${assoc(ds)}?page_size=1`)).body.data.total_count,
      datasetCount: (await alice.client.get(`/v1/datasets/${ds}/topics/count`)).body.data,
      file: (await alice.client.get(`/v1/topics/association/${q(`file:${fileId}`)}`)).body.data.total_count,
    });
    const made = [];
    for (const name of ["a", "b", "c"]) made.push((await alice.client.post("/v1/topics", { association: { association_id: ds }, topic_name: name })).body.data);
    await alice.client.post("/v1/topics", { association: { association_id: fileId, association_type: "file" }, topic_name: "/f1" });
    await alice.client.post("/v1/topics", { association: { association_id: fileId, association_type: "file" }, topic_name: "/f2" });
    expect(await counts()).toEqual({ dataset: 3, datasetCount: 3, file: 2 });
    expect((await alice.client.put(`/v1/topics/id/${made[0].topic_id}`, { end_time: 7 })).status).toBe(200);
    expect((await alice.client.delete(`/v1/topics/id/${made[1].topic_id}`)).status).toBe(200);
    expect(await counts()).toEqual({ dataset: 2, datasetCount: 2, file: 2 });
    expect((await alice.client.delete(`/v1/files/${fileId}`)).status).toBe(200);
    expect((await alice.client.get(`/v1/topics/association/${assoc(ds)}`)).body.data.total_count).toBe(2);
  });
});

describe("delete_topic and what deleting its owner does", () => {
  test("deletes by association and name and by id", async () => {
    const a = await createTopic();
    const b = await createTopic();
    expect((await alice.client.delete(`/v1/topics/association/${assoc()}/name/${q(a.topic_name)}`)).status).toBe(200);
    expect((await alice.client.delete(`/v1/topics/id/${b.topic_id}`)).status).toBe(200);
    expect((await alice.client.get(`/v1/topics/id/${a.topic_id}`)).status).toBe(404);
    expect((await alice.client.get(`/v1/topics/message-path/id/${a.message_paths[0]?.message_path_id ?? "mp_none"}`)).status).toBe(404);
    expect((await alice.client.delete(`/v1/topics/id/${b.topic_id}`)).status).toBe(404);
  });

  test("deleting a file or a dataset removes its topics", async () => {
    const ds = await createDataset(alice.client, "doomed");
    const fileId = await uploadOne(ds, "a.mcap");
    const onFile = (await alice.client.post("/v1/topics", { association: { association_id: fileId, association_type: "file" }, topic_name: "/f", message_paths: [SPEED] })).body.data;
    const onDataset = (await alice.client.post("/v1/topics", { association: { association_id: ds }, topic_name: "/d" })).body.data;
    expect((await alice.client.get(`/v1/topics/association/${q(`file:${fileId}`)}`)).body.data.items).toHaveLength(1);
    expect((await alice.client.delete(`/v1/files/${fileId}`)).status).toBe(200);
    expect((await alice.client.get(`/v1/topics/id/${onFile.topic_id}`)).status).toBe(404);
    expect((await alice.client.delete(`/v1/datasets/${ds}`)).status).toBe(200);
    expect((await alice.client.get(`/v1/topics/id/${onDataset.topic_id}`)).status).toBe(404);
  });
});

describe("another org", () => {
  test("sees nothing: 404 by id, name and message path, 404 on the association's listings, and cannot write", async () => {
    const topic = await createTopic({ message_paths: [SPEED] });
    const paths = [
      `/v1/topics/id/${topic.topic_id}`,
      `/v1/topics/association/${assoc()}/name/${q(topic.topic_name)}`,
      `/v1/topics/message-path/id/${topic.message_paths[0].message_path_id}`,
      `/v1/topics/association/${assoc()}`,
      `/v1/topics/association/id/${datasetId}`,
      `/v1/datasets/${datasetId}/topics`,
      `/v1/datasets/${datasetId}/topics/count`,
      `/v1/topics/id/${topic.topic_id}/message-path/representations`,
    ];
    for (const path of paths) expect({ path, status: (await bob.client.get(path)).status }).toEqual({ path, status: 404 });
    expect((await bob.client.put(`/v1/topics/id/${topic.topic_id}`, { end_time: 1 })).status).toBe(404);
    expect((await bob.client.delete(`/v1/topics/id/${topic.topic_id}`)).status).toBe(404);
    expect((await bob.client.post("/v1/topics", { association: { association_id: datasetId }, topic_name: "steal" })).status).toBe(404);
    expect((await alice.client.get(`/v1/topics/id/${topic.topic_id}`)).body.data).toEqual(topic);
  });
});
