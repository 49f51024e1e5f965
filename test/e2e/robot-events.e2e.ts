import { createDataset, expectBadRequest, expectError, startWithTenants, uploadFiles, waitFor, type ApiClient, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// Events (the API's word; robot_events in the data service) through the gateway: the record,
// associations with datasets and files (a file's carries its dataset as `parent`), exact
// nanosecond times, display options and changesets, listings by association and by dataset with
// the count, the batch delete, bad input (a 400 naming the field, nothing written), other orgs
// (404s, empty listings), and what deleting a dataset or a file does to its events.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["events-alice", "events-bob"]);
});
afterAll(() => t?.close());

const INT64_MAX = "9223372036854775807";

/** A dataset with files at the given paths; returns the dataset id and the file ids by path. */
async function datasetWithFiles(client: ApiClient, paths: string[]): Promise<{ datasetId: string; fileIds: Record<string, string> }> {
  const datasetId = await createDataset(client, "events");
  await uploadFiles(client, datasetId, Object.fromEntries(paths.map((p) => [p, `bytes of ${p}`])));
  const fileIds: Record<string, string> = {};
  for (const path of paths) fileIds[path] = (await client.get(`/v1/files/record/path/${encodeURIComponent(path)}/association/${datasetId}`)).body.data.file_id;
  return { datasetId, fileIds };
}

async function createEvent(client: ApiClient, body: Record<string, unknown>): Promise<any> {
  const res = await client.post("/v1/events/create", { name: "spike", start_time: 10, end_time: 20, ...body });
  if (res.status !== 200) throw new Error(`create event failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

const dataset = (id: string) => ({ association_id: id, association_type: "dataset" });
const file = (id: string) => ({ association_id: id, association_type: "file" });
const eventIds = (page: { items: { event_id: string }[] }) => page.items.map((e) => e.event_id);

describe("events about topics and message paths", () => {
  async function topicOn(datasetId: string): Promise<{ topicId: string; messagePathId: string }> {
    const res = await alice.client.post("/v1/topics", {
      association: { association_id: datasetId, association_type: "dataset" },
      topic_name: "/imu",
      message_paths: [{ message_path: "accel.x", data_type: "float64", canonical_data_type: "number" }],
    });
    if (res.status !== 200) throw new Error(`create topic failed: ${JSON.stringify(res.body)}`);
    return { topicId: res.body.data.topic_id, messagePathId: res.body.data.message_paths[0].message_path_id };
  }

  test("an event on a topic and one of its message paths reads back with them; another org cannot name them", async () => {
    const datasetId = await createDataset(alice.client, "events");
    const { topicId, messagePathId } = await topicOn(datasetId);
    const event = await createEvent(alice.client, { associations: [{ association_id: topicId, association_type: "topic" }, { association_id: messagePathId, association_type: "message_path" }] });
    expect(event.associations).toEqual([
      { association_id: topicId, association_type: "topic", association_version: null, parent: null },
      { association_id: messagePathId, association_type: "message_path", association_version: null, parent: null },
    ]);
    const listed = await alice.client.post("/v1/events/query/for_associations", { associations: [{ association_id: topicId, association_type: "topic" }] });
    expect(eventIds(listed.body.data)).toEqual([event.event_id]);
    const foreign = await bob.client.post("/v1/events/create", { name: "spike", start_time: 10, end_time: 20, associations: [{ association_id: topicId, association_type: "topic" }] });
    expectError(foreign, 404, `topic '${topicId}' not found`);
  });

  test("deleting the topic deletes an event that was only about it and its message path, and leaves one also about the dataset", async () => {
    const datasetId = await createDataset(alice.client, "events");
    const { topicId, messagePathId } = await topicOn(datasetId);
    const only = await createEvent(alice.client, { associations: [{ association_id: topicId, association_type: "topic" }, { association_id: messagePathId, association_type: "message_path" }] });
    const also = await createEvent(alice.client, { associations: [{ association_id: topicId, association_type: "topic" }, dataset(datasetId)] });
    expect((await alice.client.delete(`/v1/topics/id/${topicId}`)).status).toBe(200);
    expect((await alice.client.get(`/v1/events/id/${only.event_id}`)).status).toBe(404);
    const kept = await alice.client.get(`/v1/events/id/${also.event_id}`);
    expect(kept.status).toBe(200);
    expect(kept.body.data.associations).toEqual([expect.objectContaining({ association_id: datasetId, association_type: "dataset" })]);
  });
});

describe("create_event and get_event", () => {
  test("creates an event with the documented fields and reads it back", async () => {
    const datasetId = await createDataset(alice.client, "events");
    const res = await alice.client.post("/v1/events/create", {
      name: "Takeoff",
      description: "left the pad",
      start_time: 1_700_000_000_000_000_000n.toString(),
      end_time: 1_700_000_001_000_000_000n.toString(),
      associations: [dataset(datasetId)],
      metadata: { phase: "climb" },
      tags: ["flight", "flight", "auto"],
      display_options: { color: "red" },
      custom_fields: { severity: 2 },
    });
    expect(res.status).toBe(200);
    const event = res.body.data;
    expect(event).toEqual({
      event_id: expect.stringMatching(/^ev_[0-9a-z]{20}$/),
      org_id: alice.orgId,
      associations: [{ association_id: datasetId, association_type: "dataset", association_version: null, parent: null }],
      created: expect.any(String),
      created_by: alice.userId,
      description: "left the pad",
      start_time: 1_700_000_000_000_000_000,
      end_time: 1_700_000_001_000_000_000,
      metadata: { phase: "climb" },
      custom_fields: { severity: 2 },
      modified: event.created,
      modified_by: alice.userId,
      name: "Takeoff",
      tags: ["flight", "auto"],
      display_options: { color: "red" },
    });
    expect(await alice.client.get(`/v1/events/id/${event.event_id}`)).toMatchObject({ status: 200, body: { data: event } });
  });

  test("times are exact nanoseconds up to 2^63 - 1, as JSON numbers", async () => {
    const datasetId = await createDataset(alice.client, "events");
    const res = await alice.client.raw(
      "POST",
      "/v1/events/create",
      `{"name":"far","start_time":9223372036854775806,"end_time":${INT64_MAX},"associations":[{"association_id":"${datasetId}","association_type":"dataset"}]}`,
    );
    expect(res.status).toBe(200);
    const text = await (await fetch(`${t.url}/v1/events/id/${res.body.data.event_id}`, { headers: { authorization: `Bearer ${alice.token}` } })).text();
    expect(text).toContain(`"start_time":9223372036854775806`);
    expect(text).toContain(`"end_time":${INT64_MAX}`);
    expectBadRequest(await alice.client.raw("POST", "/v1/events/create", `{"name":"past","start_time":0,"end_time":9223372036854775808,"associations":[]}`), "end_time");
  });

  test("an event on a file carries the file's dataset as parent; the association type may be inferred from the id", async () => {
    const { datasetId, fileIds } = await datasetWithFiles(alice.client, ["logs/a.mcap"]);
    const event = await createEvent(alice.client, { associations: [{ association_id: fileIds["logs/a.mcap"] }] });
    expect(event.associations).toEqual([
      { association_id: fileIds["logs/a.mcap"], association_type: "file", association_version: null, parent: { association_id: datasetId, association_type: "dataset", association_version: null, parent: null } },
    ]);
  });

  test.each([
    [{ name: "" }, "name"],
    [{ name: undefined }, "name"],
    [{ start_time: undefined }, "start_time"],
    [{ start_time: -1 }, "start_time"],
    [{ start_time: 30, end_time: 20 }, "end_time"],
    [{ start_time: "soon" }, "start_time"],
    [{ associations: [] }, "associations"],
    [{ associations: [{ association_id: "ds_x", association_type: "robot" }] }, "associations[0].association_type"],
    [{ associations: [{ association_id: "xx_unknown" }] }, "associations[0].association_type"],
    [{ associations: [{ association_id: "", association_type: "dataset" }] }, "associations[0].association_id"],
    [{ tags: [""] }, "tags[0]"],
  ])("bad input %j is a 400 naming %s and writes nothing", async (body, field) => {
    const datasetId = await createDataset(alice.client, "events");
    expectBadRequest(await alice.client.post("/v1/events/create", { name: "e", start_time: 1, end_time: 2, associations: [dataset(datasetId)], ...body }), field);
    expect((await alice.client.get(`/v1/datasets/${datasetId}/events/count`)).body).toEqual({ data: 0 });
  });

  test("an association with an unknown dataset, file, topic or message path, or another org's, is a 404 and creates nothing", async () => {
    const { datasetId, fileIds } = await datasetWithFiles(alice.client, ["a.txt"]);
    const bobsDataset = await createDataset(bob.client, "bobs");
    const cases: [Record<string, unknown>, string][] = [
      [dataset("ds_missing"), "dataset 'ds_missing' not found"],
      [dataset(bobsDataset), `dataset '${bobsDataset}' not found`],
      [file("fl_missing"), "file 'fl_missing' not found"],
      [{ association_id: "tp_missing", association_type: "topic" }, "topic 'tp_missing' not found"],
      [{ association_id: "mp_missing" }, "message path 'mp_missing' not found"],
    ];
    for (const [association, message] of cases) {
      expectError(await alice.client.post("/v1/events/create", { name: "e", start_time: 1, end_time: 2, associations: [dataset(datasetId), file(fileIds["a.txt"]!), association] }), 404, message);
    }
    expect((await alice.client.get(`/v1/datasets/${datasetId}/events/count`)).body).toEqual({ data: 0 });
  });
});

describe("update_event", () => {
  test("changes name, times, description, metadata, display options and custom fields; omitted fields stay", async () => {
    const datasetId = await createDataset(alice.client, "events");
    const event = await createEvent(alice.client, { associations: [dataset(datasetId)], description: "d", metadata: { a: 1 }, tags: ["x"], display_options: { color: "blue" } });
    const res = await alice.client.put(`/v1/events/id/${event.event_id}`, {
      name: "renamed",
      end_time: 50,
      metadata_changeset: { put_fields: { "b.c": 2 }, put_tags: ["y"], remove_tags: ["x"] },
      custom_fields_changeset: { set_fields: { owner: "ops" } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: "renamed", start_time: 10, end_time: 50, description: "d", metadata: { a: 1, b: { c: 2 } }, tags: ["y"], display_options: { color: "blue" }, custom_fields: { owner: "ops" } });
    const cleared = await alice.client.put(`/v1/events/id/${event.event_id}`, { description: null, display_options_changeset: { color: null } });
    expect(cleared.body.data).toMatchObject({ description: null, display_options: null, name: "renamed" });
    const recolored = await alice.client.put(`/v1/events/id/${event.event_id}`, { display_options_changeset: { color: "#ff0000" } });
    expect(recolored.body.data.display_options).toEqual({ color: "#ff0000" });
  });

  test("an end before the start (with the stored start) is a 400 and changes nothing", async () => {
    const datasetId = await createDataset(alice.client, "events");
    const event = await createEvent(alice.client, { associations: [dataset(datasetId)] });
    expectBadRequest(await alice.client.put(`/v1/events/id/${event.event_id}`, { end_time: 5 }), "end_time");
    expectBadRequest(await alice.client.put(`/v1/events/id/${event.event_id}`, { name: " " }), "name");
    expectBadRequest(await alice.client.put(`/v1/events/id/${event.event_id}`, { description: 7 }), "description");
    expect((await alice.client.get(`/v1/events/id/${event.event_id}`)).body.data).toEqual(event);
  });
});

describe("listings", () => {
  test("by associations: events about any of them, newest first, paged with page_token in the body", async () => {
    const { datasetId, fileIds } = await datasetWithFiles(alice.client, ["a.txt", "b.txt"]);
    const onDataset = await createEvent(alice.client, { associations: [dataset(datasetId)] });
    const onA = await createEvent(alice.client, { associations: [file(fileIds["a.txt"]!)] });
    const onB = await createEvent(alice.client, { associations: [file(fileIds["b.txt"]!), dataset(datasetId)] });
    const byA = await alice.client.post("/v1/events/query/for_associations", { associations: [file(fileIds["a.txt"]!)] });
    expect(byA.body.data).toEqual({ items: [onA], next_token: null, total_count: 1 });
    const both = await alice.client.post("/v1/events/query/for_associations", { associations: [dataset(datasetId), file(fileIds["a.txt"]!)], page_size: 2 });
    expect(eventIds(both.body.data)).toEqual([onB.event_id, onA.event_id]);
    expect(both.body.data.total_count).toBe(3);
    const rest = await alice.client.post("/v1/events/query/for_associations", { associations: [dataset(datasetId), file(fileIds["a.txt"]!)], page_size: 2, page_token: both.body.data.next_token });
    expect(rest.body.data).toMatchObject({ items: [onDataset], next_token: null });
    expectBadRequest(await alice.client.post("/v1/events/query/for_associations", { associations: [] }), "associations");
  });

  test("a dataset's events include those on its files; the count agrees", async () => {
    const { datasetId, fileIds } = await datasetWithFiles(alice.client, ["a.txt"]);
    const other = await createDataset(alice.client, "other");
    const onDataset = await createEvent(alice.client, { associations: [dataset(datasetId)] });
    const onFile = await createEvent(alice.client, { associations: [file(fileIds["a.txt"]!)] });
    await createEvent(alice.client, { associations: [dataset(other)] });
    const page = (await alice.client.get(`/v1/datasets/${datasetId}/events`)).body.data;
    expect(eventIds(page)).toEqual([onFile.event_id, onDataset.event_id]);
    expect(page.items[0]).toEqual(onFile);
    expect((await alice.client.get(`/v1/datasets/${datasetId}/events/count`)).body).toEqual({ data: 2 });
    const first = (await alice.client.get(`/v1/datasets/${datasetId}/events?page_size=1`)).body.data;
    const second = (await alice.client.get(`/v1/datasets/${datasetId}/events?page_size=1&page_token=${encodeURIComponent(first.next_token)}`)).body.data;
    expect([...eventIds(first), ...eventIds(second)]).toEqual([onFile.event_id, onDataset.event_id]);
    expect(second.next_token).toBeNull();
  });
});

describe("delete_events and delete_event", () => {
  test("deletes a batch in one go; unknown and other orgs' ids are ignored", async () => {
    const datasetId = await createDataset(alice.client, "events");
    const [a, b, c] = [await createEvent(alice.client, { associations: [dataset(datasetId)] }), await createEvent(alice.client, { associations: [dataset(datasetId)] }), await createEvent(alice.client, { associations: [dataset(datasetId)] })];
    const bobsEvent = await createEvent(bob.client, { associations: [dataset(await createDataset(bob.client, "b"))] });
    expect(await alice.client.post("/v1/events/delete", { event_ids: [a.event_id, c.event_id, "ev_missing", bobsEvent.event_id] })).toMatchObject({ status: 200, body: { data: null } });
    expect(eventIds((await alice.client.get(`/v1/datasets/${datasetId}/events`)).body.data)).toEqual([b.event_id]);
    expect((await bob.client.get(`/v1/events/id/${bobsEvent.event_id}`)).status).toBe(200);
    expect(await alice.client.post("/v1/events/delete", { event_ids: [a.event_id] })).toMatchObject({ status: 200, body: { data: null } });
  });

  test("an empty batch, or one of more than 1,000 ids, is a 400 and deletes nothing", async () => {
    const datasetId = await createDataset(alice.client, "events");
    const event = await createEvent(alice.client, { associations: [dataset(datasetId)] });
    expectBadRequest(await alice.client.post("/v1/events/delete", { event_ids: [] }), "event_ids");
    expectBadRequest(await alice.client.post("/v1/events/delete", { event_ids: [event.event_id, ...Array.from({ length: 1000 }, (_, i) => `ev_${i}`)] }), "event_ids");
    expect((await alice.client.get(`/v1/events/id/${event.event_id}`)).status).toBe(200);
  });

  test("the single delete answers data null, then 404", async () => {
    const event = await createEvent(alice.client, { associations: [dataset(await createDataset(alice.client, "events"))] });
    expect(await alice.client.delete(`/v1/events/id/${event.event_id}`)).toMatchObject({ status: 200, body: { data: null } });
    expectError(await alice.client.get(`/v1/events/id/${event.event_id}`), 404, `event '${event.event_id}' not found`);
    expectError(await alice.client.delete(`/v1/events/id/${event.event_id}`), 404, `event '${event.event_id}' not found`);
  });
});

describe("another org", () => {
  test("sees nothing of an org's events: 404s and empty listings, and changes nothing", async () => {
    const { datasetId, fileIds } = await datasetWithFiles(alice.client, ["a.txt"]);
    const event = await createEvent(alice.client, { associations: [dataset(datasetId), file(fileIds["a.txt"]!)] });
    const missing = `event '${event.event_id}' not found`;
    expectError(await bob.client.get(`/v1/events/id/${event.event_id}`), 404, missing);
    expectError(await bob.client.put(`/v1/events/id/${event.event_id}`, { name: "mine" }), 404, missing);
    expectError(await bob.client.delete(`/v1/events/id/${event.event_id}`), 404, missing);
    expect(await bob.client.post("/v1/events/delete", { event_ids: [event.event_id] })).toMatchObject({ status: 200 });
    expect((await bob.client.post("/v1/events/query/for_associations", { associations: [dataset(datasetId), file(fileIds["a.txt"]!)] })).body.data).toEqual({ items: [], next_token: null, total_count: 0 });
    expectError(await bob.client.get(`/v1/datasets/${datasetId}/events`), 404, `dataset '${datasetId}' not found`);
    expectError(await bob.client.get(`/v1/datasets/${datasetId}/events/count`), 404, `dataset '${datasetId}' not found`);
    expect((await alice.client.get(`/v1/events/id/${event.event_id}`)).body.data).toEqual(event);
  });
});

describe("deleting what events are about", () => {
  test("deleting a file removes its associations; an event left with none goes too", async () => {
    const { datasetId, fileIds } = await datasetWithFiles(alice.client, ["a.txt", "b.txt"]);
    const onlyA = await createEvent(alice.client, { associations: [file(fileIds["a.txt"]!)] });
    const aAndDataset = await createEvent(alice.client, { associations: [file(fileIds["a.txt"]!), dataset(datasetId)] });
    expect((await alice.client.delete(`/v1/files/${fileIds["a.txt"]}`)).status).toBe(200);
    expect((await alice.client.get(`/v1/events/id/${onlyA.event_id}`)).status).toBe(404);
    expect((await alice.client.get(`/v1/events/id/${aAndDataset.event_id}`)).body.data.associations).toEqual([
      { association_id: datasetId, association_type: "dataset", association_version: null, parent: null },
    ]);
  });

  test("deleting a dataset removes the events about it at once, and those about its files with the files", async () => {
    const { datasetId, fileIds } = await datasetWithFiles(alice.client, ["a.txt"]);
    const keep = await createDataset(alice.client, "kept");
    const onDataset = await createEvent(alice.client, { associations: [dataset(datasetId)] });
    const onFile = await createEvent(alice.client, { associations: [file(fileIds["a.txt"]!)] });
    const shared = await createEvent(alice.client, { associations: [dataset(datasetId), dataset(keep)] });
    expect((await alice.client.delete(`/v1/datasets/${datasetId}`)).status).toBe(200);
    expect((await alice.client.get(`/v1/events/id/${onDataset.event_id}`)).status).toBe(404);
    expect((await alice.client.get(`/v1/events/id/${shared.event_id}`)).body.data.associations).toEqual([dataset(keep)].map((a) => ({ ...a, association_version: null, parent: null })));
    await waitFor("the file's event to go with the cleanup", async () => ((await alice.client.get(`/v1/events/id/${onFile.event_id}`)).status === 404 ? true : undefined));
  });
});
