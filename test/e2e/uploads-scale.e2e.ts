import { GetObjectCommand } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { createHash, randomBytes } from "node:crypto";
import {
  createDataset,
  keyOfUri,
  s3With,
  startWithTenants,
  uploadFiles,
  type TestPlatform,
  type TestTenant,
  type UploadCredentials,
} from "@hangar/test-harness";

// Uploads at a size and count a robot log produces: a 50 MiB multipart upload, thousands of files
// paged through, and concurrent transactions on one dataset.

let t: TestPlatform;
let alice: TestTenant;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["scale"]);
});
afterAll(() => t?.close());

test("a 50 MiB file uploads in 8 MiB parts with the transaction's credentials and downloads intact", async () => {
  const datasetId = await createDataset(alice.client);
  const body = randomBytes(50 * 1024 * 1024);
  const begun = (await alice.client.post("/v1/files/upload", { association: { association_id: datasetId }, origination: "t", resource_manifest: { "big/log.mcap": body.length } })).body.data;
  const creds = (await alice.client.get(`/v1/files/upload/${begun.transaction_id}/credentials`)).body.data[0] as UploadCredentials;
  const s3 = s3With(creds);
  await new Upload({ client: s3, params: { Bucket: creds.bucket, Key: keyOfUri(begun.upload_mappings["big/log.mcap"]), Body: body }, partSize: 8 * 1024 * 1024 }).done();
  expect((await alice.client.put(`/v1/files/upload/${begun.transaction_id}/complete`)).status).toBe(200);
  const file = (await alice.client.get(`/v1/files/record/path/${encodeURIComponent("big/log.mcap")}/association/${datasetId}`)).body.data;
  expect(file.size).toBe(body.length);
  const read = (await alice.client.get(`/v1/datasets/id/${datasetId}/credentials`)).body.data[0] as UploadCredentials;
  const reader = s3With(read);
  const got = await reader.send(new GetObjectCommand({ Bucket: read.bucket, Key: keyOfUri(file.uri) }));
  const digest = createHash("sha256").update(Buffer.from(await got.Body!.transformToByteArray())).digest("hex");
  expect(digest).toBe(createHash("sha256").update(body).digest("hex"));
  s3.destroy();
  reader.destroy();
}, 120_000);

test("paging through 1,500 files returns each exactly once, in order", async () => {
  const datasetId = await createDataset(alice.client);
  const files = Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`f/${String(i).padStart(5, "0")}.bin`, `${i}`]));
  await uploadFiles(alice.client, datasetId, files);
  const seen: string[] = [];
  let token: string | null = null;
  do {
    const page: { items: { relative_path: string }[]; next_token: string | null; total_count: number } = (
      await alice.client.post(`/v1/datasets/${datasetId}/files/query`, { limit: 400, ...(token ? { page_token: token } : {}) })
    ).body.data;
    expect(page.total_count).toBe(1500);
    seen.push(...page.items.map((f) => f.relative_path));
    token = page.next_token;
  } while (token);
  expect(seen).toEqual(Object.keys(files).sort());
  expect((await alice.client.get(`/v1/datasets/${datasetId}/directory/f/count`)).body.data).toBe(1500);
}, 120_000);

test("concurrent transactions on one dataset all land: distinct paths as files, one path as successive versions", async () => {
  const datasetId = await createDataset(alice.client);
  await Promise.all(Array.from({ length: 6 }, (_, i) => uploadFiles(alice.client, datasetId, { [`c/${i}.txt`]: `${i}`, "shared.txt": `writer ${i}` })));
  const listed = (await alice.client.post(`/v1/datasets/${datasetId}/files/query`, {})).body.data.items.map((f: { relative_path: string }) => f.relative_path);
  expect(listed).toEqual(["c/0.txt", "c/1.txt", "c/2.txt", "c/3.txt", "c/4.txt", "c/5.txt", "shared.txt"]);
  const shared = (await alice.client.get(`/v1/files/record/path/shared.txt/association/${datasetId}`)).body.data;
  expect(shared.version).toBe(6);
  expect((await alice.client.get(`/v1/datasets/${datasetId}/directory/c`)).body.data.directories).toEqual([]);
});
