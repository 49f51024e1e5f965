import { createDataset, expectBadRequest, expectError, startWithTenants, uploadFiles, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// Dataset rows 91-94 through the gateway: get/set_dataset_summary (a stored summary, the SDK's
// AISummary record), regenerate_dataset_summary (until the assistant exists, a summary the
// platform composes from the dataset's files and topics, complete at once: never a 501 nor a
// pending summary nothing finishes), and the dataset's file count; other orgs see nothing.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["summary-alice", "summary-bob"]);
});
afterAll(() => t?.close());

const summaryRecord = (text: string) => ({ summary_id: expect.any(String), text, created: expect.any(String), status: "complete" });

describe("dataset summaries", () => {
  test("a dataset without a summary answers 404 until one is set; set stores it and get reads it back", async () => {
    const datasetId = await createDataset(alice.client, "summary-set");
    expectError(await alice.client.get(`/v1/datasets/${datasetId}/summary`), 404, `summary of dataset '${datasetId}' not found`);
    const set = await alice.client.put(`/v1/datasets/${datasetId}/summary`, { summary: "Two laps of the **test track**." });
    expect(set).toMatchObject({ status: 200, body: { data: summaryRecord("Two laps of the **test track**.") } });
    const got = await alice.client.get(`/v1/datasets/${datasetId}/summary`);
    expect(got.body.data).toEqual(set.body.data);
    const again = await alice.client.put(`/v1/datasets/${datasetId}/summary`, { summary: "Replaced." });
    expect((await alice.client.get(`/v1/datasets/${datasetId}/summary`)).body.data).toEqual(again.body.data);
    expect(again.body.data.summary_id).not.toBe(set.body.data.summary_id);
  });

  test("regenerate composes a complete summary from the dataset's files and topics, which get then reads", async () => {
    const datasetId = await createDataset(alice.client, "summary-regenerate");
    await uploadFiles(alice.client, datasetId, { "a.mcap": "12345", "b.txt": "123" });
    const fileId = (await alice.client.get(`/v1/files/record/path/a.mcap/association/${datasetId}`)).body.data.file_id;
    const schema = { name: "Imu", fields: [{ name: "x", data_type: "float64", canonical_data_type: "number" }] };
    const sources = [{ kind: "mcap_log_time", min_file_timestamp_ns: 1, max_file_timestamp_ns: 2 }];
    await alice.client.post(`/v1/files/id/${fileId}/topics`, { topics: ["/imu", "/gps"].map((topic_name) => ({ topic_name, topic_schema: schema, timeline_sources: sources })) });
    const res = await alice.client.post(`/v1/datasets/${datasetId}/summary`);
    expect(res).toMatchObject({ status: 200, body: { data: summaryRecord("**summary-regenerate**\n\n2 files, 8 bytes in all.\n2 topics: `/gps`, `/imu`.") } });
    expect((await alice.client.get(`/v1/datasets/${datasetId}/summary`)).body.data).toEqual(res.body.data);
  });

  test("a missing summary field is a 400 naming it and writes nothing", async () => {
    const datasetId = await createDataset(alice.client, "summary-bad");
    expectBadRequest(await alice.client.put(`/v1/datasets/${datasetId}/summary`, {}), "summary");
    expectBadRequest(await alice.client.put(`/v1/datasets/${datasetId}/summary`, { summary: 7 }), "summary");
    expectBadRequest(await alice.client.put(`/v1/datasets/${datasetId}/summary`, { summary: "x".repeat(100_001) }), "summary");
    expect((await alice.client.get(`/v1/datasets/${datasetId}/summary`)).status).toBe(404);
  });

  test("another org's caller reads, sets and regenerates nothing", async () => {
    const datasetId = await createDataset(alice.client, "summary-private");
    await alice.client.put(`/v1/datasets/${datasetId}/summary`, { summary: "Alice's." });
    const missing = `dataset '${datasetId}' not found`;
    expectError(await bob.client.get(`/v1/datasets/${datasetId}/summary`), 404, missing);
    expectError(await bob.client.put(`/v1/datasets/${datasetId}/summary`, { summary: "Bob's." }), 404, missing);
    expectError(await bob.client.post(`/v1/datasets/${datasetId}/summary`), 404, missing);
    expect((await alice.client.get(`/v1/datasets/${datasetId}/summary`)).body.data.text).toBe("Alice's.");
  });
});

describe("dataset file count", () => {
  test("counts the dataset's available files, hidden ones included; another org gets a 404", async () => {
    const datasetId = await createDataset(alice.client, "file-count");
    expect(await alice.client.get(`/v1/datasets/${datasetId}/files/count`)).toMatchObject({ status: 200, body: { data: 0 } });
    await uploadFiles(alice.client, datasetId, { "a.txt": "a", "dir/b.txt": "b", ".hidden/c.txt": "c" });
    expect((await alice.client.get(`/v1/datasets/${datasetId}/files/count`)).body.data).toBe(3);
    expectError(await bob.client.get(`/v1/datasets/${datasetId}/files/count`), 404, `dataset '${datasetId}' not found`);
  });
});
