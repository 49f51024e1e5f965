import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { Client } from "pg";
import {
  createDataset,
  expectBadRequest,
  keyOfUri,
  s3With,
  startWithTenants,
  uploadFiles,
  type ApiClient,
  type TestPlatform,
  type TestTenant,
  type UploadCredentials,
} from "@hangar/test-harness";

// The batch upload flow of the client SDK (wire notes, "Uploads"), single-file uploads, and the file
// records they produce, through the gateway and the embedded S3-compatible endpoint.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let db: Client;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
  db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

type Credentials = UploadCredentials;
const datasetOf = (client: ApiClient) => createDataset(client);
const keyOf = keyOfUri;
const upload = uploadFiles;

async function uploadEvents(transactionId: string): Promise<number> {
  const rows = await db.query("select count(*)::int as n from data.outbox where topic = 'hangar.data.upload-completed.v1' and position(convert_to($1, 'UTF8') in payload) > 0", [transactionId]);
  return rows.rows[0].n;
}

describe("batch upload", () => {
  test("begin returns one s3:// mapping per manifest path; credentials are scoped, expire at least 15 minutes ahead, and carry a timezone", async () => {
    const datasetId = await datasetOf(alice.client);
    const begun = await alice.client.post("/v1/files/upload", {
      association: { association_id: datasetId, association_type: "dataset" },
      origination: "test",
      resource_manifest: { "a.txt": 1, "dir/b.txt": 2 },
    });
    expect(Object.keys(begun.body.data.upload_mappings).sort()).toEqual(["a.txt", "dir/b.txt"]);
    for (const uri of Object.values(begun.body.data.upload_mappings) as string[]) expect(uri).toMatch(/^s3:\/\/[a-z0-9.-]+\/.+/);
    const creds = (await alice.client.get(`/v1/files/upload/${begun.body.data.transaction_id}/credentials`)).body.data;
    expect(creds).toHaveLength(1);
    expect(creds[0].expiration).toMatch(/(Z|[+-]\d\d:\d\d)$/);
    expect(Date.parse(creds[0].expiration) - Date.now()).toBeGreaterThanOrEqual(15 * 60 * 1000);
    for (const uri of Object.values(begun.body.data.upload_mappings) as string[]) expect(keyOf(uri).startsWith(creds[0].required_prefix)).toBe(true);
  });

  test("files become available on complete and are visible by path at once, with the documented fields", async () => {
    const datasetId = await datasetOf(alice.client);
    const { transactionId } = await upload(alice.client, datasetId, { "logs/run.csv": "a,b\n1,2\n" });
    const res = await alice.client.get(`/v1/files/record/path/${encodeURIComponent("logs/run.csv")}/association/${datasetId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      association_id: datasetId,
      created: expect.any(String),
      created_by: alice.userId,
      description: null,
      device_id: null,
      file_id: expect.stringMatching(/^fl_/),
      fs_type: "file",
      ingestable: false,
      ingestion_status: "not_ingested",
      metadata: {},
      modified: expect.any(String),
      modified_by: alice.userId,
      name: "run.csv",
      org_id: alice.orgId,
      origination: "test",
      parent_id: expect.stringMatching(/^dr_/),
      relative_path: "logs/run.csv",
      size: 8,
      status: "available",
      storage_type: "uploaded",
      tags: [],
      upload_id: transactionId,
      uri: expect.stringMatching(/^s3:\/\//),
      version: 1,
    });
    expect(await uploadEvents(transactionId)).toBe(1);
  });

  test("completing twice answers 200 again and writes no second upload-completed event", async () => {
    const datasetId = await datasetOf(alice.client);
    const { transactionId } = await upload(alice.client, datasetId, { "x.bin": "xyz" });
    expect((await alice.client.put(`/v1/files/upload/${transactionId}/complete`)).status).toBe(200);
    expect(await uploadEvents(transactionId)).toBe(1);
  });

  test("an object whose size differs from the manifest is refused with a 400 and nothing becomes available", async () => {
    const datasetId = await datasetOf(alice.client);
    const begun = await alice.client.post("/v1/files/upload", { association: { association_id: datasetId }, origination: "t", resource_manifest: { "a.txt": 10, "b.txt": 1 } });
    const id = begun.body.data.transaction_id;
    const creds = (await alice.client.get(`/v1/files/upload/${id}/credentials`)).body.data[0] as Credentials;
    const s3 = s3With(creds);
    await s3.send(new PutObjectCommand({ Bucket: creds.bucket, Key: keyOf(begun.body.data.upload_mappings["a.txt"]), Body: "short" }));
    await s3.send(new PutObjectCommand({ Bucket: creds.bucket, Key: keyOf(begun.body.data.upload_mappings["b.txt"]), Body: "b" }));
    s3.destroy();
    const res = await alice.client.put(`/v1/files/upload/${id}/complete`);
    expectBadRequest(res, "upload 'a.txt'");
    const listed = await alice.client.post(`/v1/datasets/${datasetId}/files/query`, {});
    expect(listed.body.data.items).toEqual([]);
  });

  test("a missing object is refused and the transaction stays open for a later complete", async () => {
    const datasetId = await datasetOf(alice.client);
    const begun = await alice.client.post("/v1/files/upload", { association: { association_id: datasetId }, origination: "t", resource_manifest: { "late.txt": 4 } });
    const id = begun.body.data.transaction_id;
    expectBadRequest(await alice.client.put(`/v1/files/upload/${id}/complete`), "upload 'late.txt'");
    const creds = (await alice.client.get(`/v1/files/upload/${id}/credentials`)).body.data[0] as Credentials;
    const s3 = s3With(creds);
    await s3.send(new PutObjectCommand({ Bucket: creds.bucket, Key: keyOf(begun.body.data.upload_mappings["late.txt"]), Body: "late" }));
    s3.destroy();
    expect((await alice.client.put(`/v1/files/upload/${id}/complete`)).status).toBe(200);
  });

  test("progress marks listed files available and lists {uri, file_id}; the transaction then completes once", async () => {
    const datasetId = await datasetOf(alice.client);
    const { transactionId, mappings } = await upload(alice.client, datasetId, { "p1.txt": "1", "p2.txt": "22" }, { complete: false });
    const first = await alice.client.put(`/v1/files/upload/${transactionId}/progress`, { manifest_items: [mappings["p1.txt"]] });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([{ uri: mappings["p1.txt"], file_id: expect.stringMatching(/^fl_/) }]);
    const listed = await alice.client.post(`/v1/datasets/${datasetId}/files/query`, {});
    expect(listed.body.data.items.map((f: { relative_path: string }) => f.relative_path)).toEqual(["p1.txt"]);
    expect(await uploadEvents(transactionId)).toBe(0);
    await alice.client.put(`/v1/files/upload/${transactionId}/progress`, { manifest_items: [mappings["p2.txt"]] });
    expect(await uploadEvents(transactionId)).toBe(1);
    expect((await alice.client.put(`/v1/files/upload/${transactionId}/complete`)).status).toBe(200);
    expect(await uploadEvents(transactionId)).toBe(1);
  });

  test("progress with a URI outside the manifest is a 400 naming the item", async () => {
    const datasetId = await datasetOf(alice.client);
    const { transactionId } = await upload(alice.client, datasetId, { "q.txt": "q" }, { complete: false });
    expectBadRequest(await alice.client.put(`/v1/files/upload/${transactionId}/progress`, { manifest_items: ["s3://elsewhere/q.txt"] }), "manifest_items[0]");
  });

  test("an aborted transaction leaves no visible file and cannot be completed", async () => {
    const datasetId = await datasetOf(alice.client);
    const { transactionId } = await upload(alice.client, datasetId, { "gone.txt": "g" }, { complete: false });
    expect((await alice.client.post("/v1/files/upload/abort", { transaction_ids: [transactionId] })).body).toEqual({ data: null });
    expect((await alice.client.put(`/v1/files/upload/${transactionId}/complete`)).status).toBe(409);
    expect((await alice.client.get(`/v1/files/record/path/gone.txt/association/${datasetId}`)).status).toBe(404);
  });

  test("uploading an existing path makes a new version; earlier versions stay readable", async () => {
    const datasetId = await datasetOf(alice.client);
    await upload(alice.client, datasetId, { "v.txt": "one" });
    await upload(alice.client, datasetId, { "v.txt": "second" });
    const current = (await alice.client.get(`/v1/files/record/path/v.txt/association/${datasetId}`)).body.data;
    expect(current.version).toBe(2);
    expect(current.size).toBe(6);
    const first = await alice.client.get(`/v1/files/record/${current.file_id}?version_id=1`);
    expect(first.body.data).toMatchObject({ file_id: current.file_id, version: 1, size: 3 });
    expect((await alice.client.get(`/v1/files/record/${current.file_id}?version_id=9`)).status).toBe(404);
  });

  test("bad paths are 400s naming the manifest entry, and nothing is written", async () => {
    const datasetId = await datasetOf(alice.client);
    for (const path of ["../up.txt", "a//b.txt", "a/./b", `${"n".repeat(256)}.txt`, ""]) {
      const res = await alice.client.post("/v1/files/upload", { association: { association_id: datasetId }, origination: "t", resource_manifest: { [path]: 1 } });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/^resource_manifest\./);
    }
    const rows = await db.query("select count(*)::int as n from data.upload_transactions where association_id = $1", [datasetId]);
    expect(rows.rows[0].n).toBe(0);
  });

  test("another org's transaction is 404 for credentials, progress and complete, and another org's dataset cannot be uploaded to", async () => {
    const datasetId = await datasetOf(alice.client);
    const { transactionId, mappings } = await upload(alice.client, datasetId, { "mine.txt": "m" }, { complete: false });
    expect((await bob.client.get(`/v1/files/upload/${transactionId}/credentials`)).status).toBe(404);
    expect((await bob.client.put(`/v1/files/upload/${transactionId}/progress`, { manifest_items: [mappings["mine.txt"]] })).status).toBe(404);
    expect((await bob.client.put(`/v1/files/upload/${transactionId}/complete`)).status).toBe(404);
    const res = await bob.client.post("/v1/files/upload", { association: { association_id: datasetId }, origination: "t", resource_manifest: { "x.txt": 1 } });
    expect(res.status).toBe(404);
  });

  test("upload credentials cannot write outside the transaction's prefix", async () => {
    const datasetId = await datasetOf(alice.client);
    const { creds } = await upload(alice.client, datasetId, { "in.txt": "i" }, { complete: false });
    const s3 = s3With(creds);
    await expect(s3.send(new PutObjectCommand({ Bucket: creds.bucket, Key: `${creds.required_prefix.split("/")[0]}/elsewhere.txt`, Body: "x" }))).rejects.toMatchObject({ name: "AccessDenied" });
    s3.destroy();
  });
});

describe("files", () => {
  test("get_file, update_file (changeset, version), signed URL download, delete", async () => {
    const datasetId = await datasetOf(alice.client);
    await upload(alice.client, datasetId, { "doc.txt": "hello" });
    const file = (await alice.client.get(`/v1/files/record/path/doc.txt/association/${datasetId}`)).body.data;
    expect((await alice.client.get(`/v1/files/record/${file.file_id}`)).body.data).toEqual(file);
    const updated = await alice.client.put(`/v1/files/record/${file.file_id}`, { description: "d", metadata_changeset: { put_fields: { "a.b": 1 }, put_tags: ["t"] }, ingestion_complete: true });
    expect(updated.body.data).toMatchObject({ description: "d", metadata: { a: { b: 1 } }, tags: ["t"], ingestion_status: "ingested", version: 2 });
    const signed = (await alice.client.get(`/v1/files/${file.file_id}/signed-url`)).body.data.url;
    expect(await (await fetch(signed)).text()).toBe("hello");
    expect((await bob.client.get(`/v1/files/record/${file.file_id}`)).status).toBe(404);
    expect((await bob.client.delete(`/v1/files/${file.file_id}`)).status).toBe(404);
    expect((await alice.client.delete(`/v1/files/${file.file_id}`)).body).toEqual({ data: null });
    expect((await alice.client.get(`/v1/files/record/${file.file_id}`)).status).toBe(404);
  });

  test("concurrent update_file calls each make a version of their own, none is lost", async () => {
    const datasetId = await datasetOf(alice.client);
    await upload(alice.client, datasetId, { "busy.txt": "x" });
    const file = (await alice.client.get(`/v1/files/record/path/busy.txt/association/${datasetId}`)).body.data;
    const tags = ["a", "b", "c", "d", "e", "f"];
    const answers = await Promise.all(tags.map((tag) => alice.client.put(`/v1/files/record/${file.file_id}`, { metadata_changeset: { put_tags: [tag] } })));
    expect(answers.map((res) => res.status)).toEqual(tags.map(() => 200));
    const after = (await alice.client.get(`/v1/files/record/${file.file_id}`)).body.data;
    expect({ version: after.version, tags: [...after.tags].sort() }).toEqual({ version: 1 + tags.length, tags });
  });

  test("query_dataset_files filters with gitignore-style patterns, sorts and pages", async () => {
    const datasetId = await datasetOf(alice.client);
    await upload(alice.client, datasetId, { "a.csv": "1", "logs/b.csv": "2", "logs/c.txt": "3", "raw/d.bin": "4", "raw/deep/e.csv": "5" });
    const paths = async (body: object) => (await alice.client.post(`/v1/datasets/${datasetId}/files/query`, body)).body.data.items.map((f: { relative_path: string }) => f.relative_path);
    expect(await paths({})).toEqual(["a.csv", "logs/b.csv", "logs/c.txt", "raw/d.bin", "raw/deep/e.csv"]);
    expect(await paths({ include_patterns: ["*.csv"] })).toEqual(["a.csv", "logs/b.csv", "raw/deep/e.csv"]);
    expect(await paths({ include_patterns: ["*.csv"], exclude_patterns: ["raw/"] })).toEqual(["a.csv", "logs/b.csv"]);
    expect(await paths({ include_patterns: ["logs/*"] })).toEqual(["logs/b.csv", "logs/c.txt"]);
    expect(await paths({ include_patterns: ["raw/**/*.csv"] })).toEqual(["raw/deep/e.csv"]);
    expect(await paths({ sort_by: "relative_path", sort_direction: "DESC", limit: 2 })).toEqual(["raw/deep/e.csv", "raw/d.bin"]);
    const first = (await alice.client.post(`/v1/datasets/${datasetId}/files/query`, { limit: 2 })).body.data;
    expect(first.total_count).toBe(5);
    const second = (await alice.client.post(`/v1/datasets/${datasetId}/files/query`, { limit: 2, page_token: first.next_token })).body.data;
    expect(second.items.map((f: { relative_path: string }) => f.relative_path)).toEqual(["logs/c.txt", "raw/d.bin"]);
    expectBadRequest(await alice.client.post(`/v1/datasets/${datasetId}/files/query`, { page_token: "garbage" }), "page_token");
    expect((await bob.client.post(`/v1/datasets/${datasetId}/files/query`, {})).status).toBe(404);
  });

  test("dataset credentials read the dataset's files; ReadOnly ones cannot write", async () => {
    const datasetId = await datasetOf(alice.client);
    const { mappings } = await upload(alice.client, datasetId, { "r.txt": "read me" });
    const creds = (await alice.client.get(`/v1/datasets/id/${datasetId}/credentials?mode=ReadOnly`)).body.data[0] as Credentials;
    expect(creds.bucket).toBe(mappings["r.txt"]!.split("/")[2]);
    const s3 = s3With(creds);
    const got = await s3.send(new GetObjectCommand({ Bucket: creds.bucket, Key: keyOf(mappings["r.txt"]!) }));
    expect(await got.Body!.transformToString()).toBe("read me");
    await expect(s3.send(new PutObjectCommand({ Bucket: creds.bucket, Key: `${creds.required_prefix}w.txt`, Body: "w" }))).rejects.toMatchObject({ name: "AccessDenied" });
    s3.destroy();
    expectBadRequest(await alice.client.get(`/v1/datasets/id/${datasetId}/credentials?mode=Everything`), "mode");
  });

  test("single-file upload: presigned PUT, then complete on the dataset route", async () => {
    const datasetId = await datasetOf(alice.client);
    const body = "single upload";
    const begun = (await alice.client.post(`/v1/datasets/${datasetId}/uploads`, { file_path: "one/single.txt", file_size: body.length })).body.data;
    expect(begun).toEqual({ upload_id: expect.any(String), upload_url: expect.stringMatching(/^http/) });
    const put = await fetch(begun.upload_url, { method: "PUT", body });
    expect(put.status).toBe(200);
    expect((await alice.client.put(`/v1/datasets/${datasetId}/uploads/${begun.upload_id}/complete`)).body).toEqual({ data: null });
    const file = (await alice.client.get(`/v1/files/record/path/${encodeURIComponent("one/single.txt")}/association/${datasetId}`)).body.data;
    expect(file.size).toBe(body.length);
  });
});

describe("begin_file_upload", () => {
  test("reserves a pending file, returns a presigned PUT URL, and completes through complete_upload", async () => {
    const datasetId = await datasetOf(alice.client);
    const body = "signed url upload";
    const begun = await alice.client.post("/v1/files/upload/signed-url", { association: { association_id: datasetId, association_type: "dataset" }, file_path: "s/u.txt", file_size: body.length, origination: "t" });
    expect(begun.status).toBe(200);
    const pending = await alice.client.get(`/v1/files/record/path/${encodeURIComponent("s/u.txt")}/association/${datasetId}`);
    expect(pending.body.data).toMatchObject({ status: "pending", size: body.length, upload_id: begun.body.data.upload_id });
    expect((await fetch(begun.body.data.upload_url, { method: "PUT", body })).status).toBe(200);
    expect((await alice.client.put(`/v1/files/upload/${begun.body.data.upload_id}/complete`)).status).toBe(200);
    const file = (await alice.client.get(`/v1/files/record/path/${encodeURIComponent("s/u.txt")}/association/${datasetId}`)).body.data;
    expect(file).toMatchObject({ status: "available", size: body.length, origination: "t", upload_id: begun.body.data.upload_id });
    expect(await uploadEvents(begun.body.data.upload_id)).toBe(1);
  });

  test("a missing association or file_size is a 400 naming it", async () => {
    expectBadRequest(await alice.client.post("/v1/files/upload/signed-url", { file_path: "a", file_size: 1 }), "association");
    const datasetId = await datasetOf(alice.client);
    expectBadRequest(await alice.client.post("/v1/files/upload/signed-url", { association: { association_id: datasetId }, file_path: "a" }), "file_size");
  });
});
