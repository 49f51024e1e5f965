import { createDataset, startWithTenants, uploadFiles, waitFor, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// The auto-ingest path end to end with a real Kafka broker and the process runner: an upload's
// event reaches the compute service, the matching rule's managed trigger dispatches its action on
// each matching file, the runner runs it, and the action marks its file ingested through
// update_file (`ingestion_complete`), so the file's `ingestion_status` moves from `not_ingested`
// to `ingested` (and is queryable). A file the action cannot read fails: latest_runs shows the
// run failed with the detail, and the file stays `not_ingested`.

// The action: marks each input file ingested, unless its name says it is broken.
const MARK_INGESTED = `
const fs = require("node:fs");
const manifest = JSON.parse(fs.readFileSync(process.env.ROBOTO_ACTION_INPUTS_MANIFEST, "utf8"));
(async () => {
  for (const [record] of manifest.files) {
    if (record.relative_path.includes("broken")) { console.error("cannot read " + record.relative_path); process.exit(3); }
    const res = await fetch(process.env.ROBOTO_SERVICE_ENDPOINT + "/v1/files/record/" + record.file_id, {
      method: "PUT",
      headers: { Authorization: "Bearer " + process.env.ROBOTO_API_KEY, "Content-Type": "application/json" },
      body: JSON.stringify({ ingestion_complete: true }),
    });
    if (!res.ok) { console.error("update_file answered " + res.status); process.exit(4); }
    console.log("ingested " + record.relative_path);
  }
})();
`;

let t: TestPlatform;
let alice: TestTenant;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["rules-flow"], { kafka: true, runner: true });
});
afterAll(() => t?.close());

async function ok(res: Promise<{ status: number; body: any }>): Promise<any> {
  const answer = await res;
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status: 200, error: undefined });
  return answer.body.data;
}

test("an auto-ingest rule ingests matching uploads through its action; a failed run is visible with its detail", async () => {
  await ok(alice.client.post("/v1/actions", { name: "mark-ingested", container_parameters: { command: ["node", "-e", MARK_INGESTED] } }));
  const rule = await ok(alice.client.post("/v1/ingestion-rules", { name: "logs", include_patterns: ["**/*.log"], invocation: { action: { name: "mark-ingested" } } }));
  const dataset = await createDataset(alice.client, "drive-1");
  await uploadFiles(alice.client, dataset, { "run/a.log": "ok\n", "run/broken.log": "??\n", "notes.md": "not a log\n" });
  const file = async (path: string) => ok(alice.client.get(`/v1/files/record/path/${encodeURIComponent(path)}/association/${dataset}`));
  const [good, broken, notes] = await Promise.all([file("run/a.log"), file("run/broken.log"), file("notes.md")]);
  expect(good.ingestion_status).toBe("not_ingested");

  const ids = [good.file_id, broken.file_id, notes.file_id];
  const runs = await waitFor(
    "both runs to end",
    async () => {
      const answer = (await ok(alice.client.post("/v1/ingestion-rules/runs/latest", { file_ids: ids }))).runs;
      const ended = [good, broken].every((f) => answer[f.file_id] && answer[f.file_id].status !== "running");
      return ended ? answer : undefined;
    },
    90_000,
  );
  expect(Object.keys(runs).sort()).toEqual([good.file_id, broken.file_id].sort());
  expect(runs[good.file_id]).toMatchObject({ rule_id: rule.rule_id, trigger_id: rule.trigger_id, status: "finished", detail: null });
  expect(runs[broken.file_id]).toMatchObject({ rule_id: rule.rule_id, status: "failed", detail: expect.any(String) });
  expect(runs[broken.file_id].detail.length).toBeGreaterThan(0);

  expect((await file("run/a.log")).ingestion_status).toBe("ingested");
  expect((await file("run/broken.log")).ingestion_status).toBe("not_ingested");
  const queried = await ok(alice.client.post("/v1/files/query", { condition: { field: "ingestion_status", comparator: "EQUALS", value: "ingested" } }));
  expect(queried.items.map((f: { file_id: string }) => f.file_id)).toEqual([good.file_id]);
});
