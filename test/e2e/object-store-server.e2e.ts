import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { loadConfig } from "@hangar/shared";
import { createDataset, freePort, keyOfUri, s3With, startWithTenants, uploadFiles, type TestPlatform, type TestTenant, type UploadCredentials } from "@hangar/test-harness";

// Issue 15: the distributed data service needs an S3-compatible store, and the dev overlay runs the
// project's own as a process of its own (`node services/object-store/dist/main.js`, after the
// build). Here that process serves a platform whose data service is configured as in deploy/ (the
// OBJECT_STORE_* variables through loadConfig): uploads and downloads with scoped session
// credentials it mints through the store's STS AssumeRole, presigned URLs and the platform's own reads.

const MAIN = path.resolve(__dirname, "../../services/object-store/dist/main.js");
const ROOT = { OBJECT_STORE_ACCESS_KEY_ID: "HANGARTESTROOTKEY01", OBJECT_STORE_SECRET_ACCESS_KEY: "test-only-object-store-root-secret" };

let server: ChildProcess;
let dataDir: string;
let endpoint: string;
let t: TestPlatform;
let alice: TestTenant;

/** Starts the built entry point and resolves once it logs that it listens; rejects with its output if it exits. */
function startServer(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("object store listening")) resolve(child);
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => reject(new Error(`the object store exited (${code}):\n${output}`)));
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "hangar-object-store-"));
  const port = await freePort();
  endpoint = `http://127.0.0.1:${port}`;
  server = await startServer({ ...ROOT, OBJECT_STORE_PORT: String(port), DATA_DIR: dataDir, OBJECT_STORE_BUCKET: "hangar-files", LOG_LEVEL: "info" });
  // The data service's side, as deploy/overlays/dev configures it.
  const { s3 } = loadConfig({ ...ROOT, OBJECT_STORE_BUCKET: "hangar-files", OBJECT_STORE_ENDPOINT: endpoint, OBJECT_STORE_ROLE_ARN: "arn:aws:iam::000000000000:role/hangar-files" });
  [t, alice] = await startWithTenants(["object-store-server"], { s3: s3! });
});
afterAll(async () => {
  await t?.close();
  server?.kill("SIGTERM");
  if (server?.exitCode === null) await new Promise((resolve) => server.once("exit", resolve));
  await rm(dataDir, { recursive: true, force: true });
});

test("an upload with STS-scoped credentials, then a download with read-only credentials and by presigned URL", async () => {
  const datasetId = await createDataset(alice.client);
  const { mappings, creds } = await uploadFiles(alice.client, datasetId, { "logs/run.txt": "through the object-store process" });
  expect(creds).toMatchObject({ endpoint, bucket: "hangar-files", access_key_id: expect.stringMatching(/^HGRE/) });
  const file = (await alice.client.get(`/v1/files/record/path/${encodeURIComponent("logs/run.txt")}/association/${datasetId}`)).body.data;
  expect(file).toMatchObject({ size: 32, status: "available", uri: mappings["logs/run.txt"] });

  const read = (await alice.client.get(`/v1/datasets/id/${datasetId}/credentials?mode=ReadOnly`)).body.data[0] as UploadCredentials;
  const s3 = s3With(read);
  try {
    const got = await s3.send(new GetObjectCommand({ Bucket: read.bucket, Key: keyOfUri(file.uri) }));
    expect(await got.Body!.transformToString()).toBe("through the object-store process");
    await expect(s3.send(new PutObjectCommand({ Bucket: read.bucket, Key: keyOfUri(file.uri), Body: "overwrite" }))).rejects.toMatchObject({ name: "AccessDenied" });
  } finally {
    s3.destroy();
  }
  const url = (await alice.client.get(`/v1/files/${file.file_id}/signed-url`)).body.data.url as string;
  expect(url.startsWith(`${endpoint}/hangar-files/`)).toBe(true);
  expect(await (await fetch(url)).text()).toBe("through the object-store process");
});

test("scoped credentials reach nothing outside their prefix", async () => {
  const first = await createDataset(alice.client, "first");
  const second = await createDataset(alice.client, "second");
  const { creds } = await uploadFiles(alice.client, first, { "a.txt": "a" });
  const { mappings } = await uploadFiles(alice.client, second, { "b.txt": "b" });
  const s3 = s3With(creds);
  try {
    await expect(s3.send(new GetObjectCommand({ Bucket: creds.bucket, Key: keyOfUri(mappings["b.txt"]!) }))).rejects.toMatchObject({ name: "AccessDenied" });
  } finally {
    s3.destroy();
  }
});

test("the standalone store refuses to start without its root credential, naming the variables", async () => {
  await expect(startServer({ OBJECT_STORE_PORT: "0", DATA_DIR: dataDir })).rejects.toThrow(/OBJECT_STORE_ACCESS_KEY_ID is required\n\s+OBJECT_STORE_SECRET_ACCESS_KEY is required/);
});
