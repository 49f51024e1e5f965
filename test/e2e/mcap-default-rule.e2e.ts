import { MCAP_INGESTION_ACTION } from "@hangar/shared";
import { createDataset, startWithTenants, uploadFiles, waitFor, type ApiClient, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { writeFixture } from "../../ingest/src/mcap.fixture";

// Issue 12, "MCAP ingestion, built in": a team that uploads an `.mcap` file sees its topics without
// writing an action. The org's default ingestion rule (`**/*.mcap`, given on its first upload)
// runs the built-in action through the runner; the file ends `ingested` with one topic per
// channel, and an org that turned the rule off gets no ingestion.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["mcap-default-alice", "mcap-default-bob"], { runner: true });
});
afterAll(() => t?.close());

const q = (text: string) => encodeURIComponent(text);

async function fileOf(client: ApiClient, datasetId: string, relativePath: string): Promise<any> {
  return (await client.get(`/v1/files/record/path/${q(relativePath)}/association/${datasetId}`)).body.data;
}

test("an uploaded .mcap file is ingested by the org's default rule: its topics appear and the file reads ingested", async () => {
  const fixture = await writeFixture("indexed", 20);
  const datasetId = await createDataset(alice.client, "auto-ingested");
  await uploadFiles(alice.client, datasetId, { "drive.mcap": Buffer.from(fixture.bytes), "notes.txt": "not a log" });
  const file = await fileOf(alice.client, datasetId, "drive.mcap");

  const ingested = await waitFor("the default rule's ingestion", async () => {
    const got = await fileOf(alice.client, datasetId, "drive.mcap");
    return got.ingestion_status === "ingested" ? got : undefined;
  }, 180_000, 500);
  expect(ingested.file_id).toBe(file.file_id);

  const topics = (await alice.client.get(`/v1/topics/association/${q(`file:${file.file_id}`)}`)).body.data.items;
  expect(topics.map((topic: any) => topic.topic_name).sort()).toEqual([...fixture.messages.keys()].sort());
  expect(topics.every((topic: any) => topic.message_count === 20)).toBe(true);

  const rules = (await alice.client.get("/v1/ingestion-rules")).body.data.items;
  const rule = rules.find((r: any) => r.include_patterns.includes("**/*.mcap"));
  expect(rule).toMatchObject({ auto_ingest: true, invocation: { action: { name: MCAP_INGESTION_ACTION.name, owner: MCAP_INGESTION_ACTION.owner } } });
  // The action marks the file ingested before its process ends and the runner reports the run: wait for that too.
  const run = await waitFor("the rule's run to finish", async () => {
    const runs = (await alice.client.post("/v1/ingestion-rules/runs/latest", { file_ids: [file.file_id] })).body.data.runs;
    return runs[file.file_id]?.status === "running" ? undefined : runs[file.file_id];
  }, 60_000, 250);
  expect(run).toMatchObject({ rule_id: rule.rule_id, status: "finished" });
  expect((await fileOf(alice.client, datasetId, "notes.txt")).ingestion_status).toBe("not_ingested");
});

test("an org that turned its default rule off gets no ingestion", async () => {
  const fixture = await writeFixture("indexed", 5);
  const first = await createDataset(bob.client, "first");
  await uploadFiles(bob.client, first, { "readme.txt": "the first upload gives the org its defaults" });
  const rule = await waitFor("the default rule", async () => {
    const items = (await bob.client.get("/v1/ingestion-rules")).body.data.items;
    return items.find((r: any) => r.include_patterns.includes("**/*.mcap"));
  });
  expect((await bob.client.put(`/v1/ingestion-rules/id/${rule.rule_id}`, { auto_ingest: false })).status).toBe(200);

  const datasetId = await createDataset(bob.client, "manual-only");
  await uploadFiles(bob.client, datasetId, { "drive.mcap": Buffer.from(fixture.bytes) });
  const file = await fileOf(bob.client, datasetId, "drive.mcap");
  // A witness: asking for a run now answers that the rule's auto-ingest is off, and nothing ran.
  const now = (await bob.client.post("/v1/ingestion-rules/runs/latest", { file_ids: [file.file_id] })).body.data.runs;
  expect(now[file.file_id]).toBeUndefined();
  const started = (await bob.client.post("/v1/ingestion-rules/ingest", { file_ids: [file.file_id] })).body.data.results;
  expect(started).toEqual([expect.objectContaining({ file_id: file.file_id, outcome: "auto_ingest_off" })]);
  expect((await fileOf(bob.client, datasetId, "drive.mcap")).ingestion_status).toBe("not_ingested");
});
