import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
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

// The same upload and download flow with file bytes in a real S3-compatible server (moto) through
// the S3 object store: STS-scoped credentials, presigned URLs and the platform's own reads.

let t: TestPlatform;
let alice: TestTenant;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["s3"], { s3: true });
});
afterAll(() => t?.close());

test("batch upload with STS credentials, completion checks, dataset credentials and a signed URL download", async () => {
  const datasetId = await createDataset(alice.client);
  const { mappings, creds } = await uploadFiles(alice.client, datasetId, { "s3/a.txt": "in moto" });
  expect(creds.endpoint).toBe(process.env.HANGAR_TEST_S3_ENDPOINT);
  expect(creds.session_token).not.toBe("");
  const file = (await alice.client.get(`/v1/files/record/path/${encodeURIComponent("s3/a.txt")}/association/${datasetId}`)).body.data;
  expect(file).toMatchObject({ size: 7, status: "available", uri: mappings["s3/a.txt"] });
  const read = (await alice.client.get(`/v1/datasets/id/${datasetId}/credentials?mode=ReadOnly`)).body.data[0] as UploadCredentials;
  expect(read.bucket).toBe(file.uri.split("/")[2]);
  const s3 = s3With(read);
  const got = await s3.send(new GetObjectCommand({ Bucket: read.bucket, Key: keyOfUri(file.uri) }));
  expect(await got.Body!.transformToString()).toBe("in moto");
  s3.destroy();
  const url = (await alice.client.get(`/v1/files/${file.file_id}/signed-url`)).body.data.url;
  expect(await (await fetch(url)).text()).toBe("in moto");
});

test("a size that differs from the manifest is refused the same way", async () => {
  const datasetId = await createDataset(alice.client);
  const begun = (await alice.client.post("/v1/files/upload", { association: { association_id: datasetId }, origination: "t", resource_manifest: { "x.txt": 99 } })).body.data;
  const creds = (await alice.client.get(`/v1/files/upload/${begun.transaction_id}/credentials`)).body.data[0] as UploadCredentials;
  const s3 = s3With(creds);
  await s3.send(new PutObjectCommand({ Bucket: creds.bucket, Key: keyOfUri(begun.upload_mappings["x.txt"]), Body: "short" }));
  s3.destroy();
  expect((await alice.client.put(`/v1/files/upload/${begun.transaction_id}/complete`)).status).toBe(400);
});
