import { createDataset, startWithTenants, uploadFiles, waitFor, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// Finished exports are kept for a retention period (24 h by default; 4 s here), then the sweep
// deletes the archive from the object store and the job with it.

const RETENTION_MS = 4000;
let t: TestPlatform;
let alice: TestTenant;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["exports-retention"], { data: { exportRetentionMs: RETENTION_MS, exportSweepIntervalMs: 200 } });
});
afterAll(() => t?.close());

test("an export past its retention loses its archive and its status (404)", async () => {
  const datasetId = await createDataset(alice.client, "retention");
  await uploadFiles(alice.client, datasetId, { "a.txt": "alpha" });
  const file = (await alice.client.get(`/v1/files/record/path/a.txt/association/${datasetId}`)).body.data;
  const started = await alice.client.post("/v1/files/export", { node_ids: [file.file_id] });
  expect(started.status).toBe(200);
  const jobId: string = started.body.data.export_job_id;

  const completed = await waitFor("the export to complete", async () => {
    const res = await alice.client.get(`/v1/files/export/id/${jobId}`);
    return res.body.data?.status === "completed" ? res.body.data : undefined;
  });
  const archiveUrl: string = completed.download_url;
  expect((await fetch(archiveUrl)).status).toBe(200);

  await waitFor("the sweep to remove the export", async () => ((await alice.client.get(`/v1/files/export/id/${jobId}`)).status === 404 ? true : undefined), 20_000);
  // The URL was presigned for an hour: only the deleted object makes it fail.
  expect((await fetch(archiveUrl)).status).toBe(404);
  // The exported file itself is untouched.
  expect((await alice.client.get(`/v1/files/record/${file.file_id}`)).status).toBe(200);
});

test("an export within its retention keeps its archive", async () => {
  const datasetId = await createDataset(alice.client, "kept");
  await uploadFiles(alice.client, datasetId, { "b.txt": "beta" });
  const file = (await alice.client.get(`/v1/files/record/path/b.txt/association/${datasetId}`)).body.data;
  const jobId: string = (await alice.client.post("/v1/files/export", { node_ids: [file.file_id] })).body.data.export_job_id;
  const completed = await waitFor("the export to complete", async () => {
    const res = await alice.client.get(`/v1/files/export/id/${jobId}`);
    return res.body.data?.status === "completed" ? res.body.data : undefined;
  });
  // Several sweeps run within the retention; the job and its archive stay.
  await new Promise((resolve) => setTimeout(resolve, RETENTION_MS / 4));
  expect((await alice.client.get(`/v1/files/export/id/${jobId}`)).status).toBe(200);
  expect((await fetch(completed.download_url)).status).toBe(200);
});
