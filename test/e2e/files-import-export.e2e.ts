import { randomBytes } from "node:crypto";
import { crc32, inflateRawSync } from "node:zlib";
import { Client } from "pg";
import {
  createDataset,
  createTenant,
  expectBadRequest,
  keyOfUri,
  startWithTenants,
  uploadFiles,
  waitFor,
  type ApiClient,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// Imports of existing objects, links to file versions, ZIP exports and the devices of files.

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

const q = encodeURIComponent;

/** Puts an object below the org's prefix of the platform's bucket and returns its `s3://` URI. */
async function existingObject(orgId: string, body: string, name = "obj.bin"): Promise<string> {
  const key = `${orgId}/imports/${randomBytes(4).toString("hex")}/${name}`;
  await t.objectStore.putObject(key, Buffer.from(body));
  return `s3://${t.objectStore.location.bucket}/${key}`;
}

async function fileAt(client: ApiClient, datasetId: string, path: string) {
  const res = await client.get(`/v1/files/record/path/${q(path)}/association/${datasetId}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function download(client: ApiClient, fileId: string): Promise<string> {
  const url = (await client.get(`/v1/files/${fileId}/signed-url`)).body.data.url;
  return (await fetch(url)).text();
}

async function paths(client: ApiClient, datasetId: string): Promise<string[]> {
  const res = await client.post(`/v1/datasets/${datasetId}/files/query`, {});
  return res.body.data.items.map((f: { relative_path: string }) => f.relative_path);
}

describe("import_file", () => {
  test("registers an existing object as an imported file with the given description, device, tags and metadata", async () => {
    const ds = await createDataset(alice.client);
    const uri = await existingObject(alice.orgId, "imported bytes");
    const res = await alice.client.post("/v1/files/import", {
      dataset_id: ds,
      relative_path: "raw/run1.mcap",
      uri,
      description: "first run",
      device_id: "robot-1",
      tags: ["a", "b", "a"],
      metadata: { site: "lab", n: 2 },
      size: 14,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      association_id: ds,
      created: expect.any(String),
      created_by: alice.userId,
      description: "first run",
      device_id: "robot-1",
      file_id: expect.stringMatching(/^fl_/),
      fs_type: "file",
      ingestable: false,
      ingestion_status: "not_ingested",
      metadata: { site: "lab", n: 2 },
      modified: expect.any(String),
      modified_by: alice.userId,
      name: "run1.mcap",
      org_id: alice.orgId,
      origination: "",
      parent_id: expect.stringMatching(/^dr_/),
      relative_path: "raw/run1.mcap",
      size: 14,
      status: "available",
      storage_type: "imported",
      tags: ["a", "b"],
      upload_id: "NO_ID",
      uri,
      version: 1,
    });
    expect((await alice.client.get(`/v1/files/record/${res.body.data.file_id}`)).body.data).toEqual(res.body.data);
    expect(await download(alice.client, res.body.data.file_id)).toBe("imported bytes");
  });

  test("without size, the object's size is taken; the minimal body gives empty defaults", async () => {
    const ds = await createDataset(alice.client);
    const res = await alice.client.post("/v1/files/import", { dataset_id: ds, relative_path: "top.txt", uri: await existingObject(alice.orgId, "12345") });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ size: 5, parent_id: null, description: null, device_id: null, tags: [], metadata: {}, storage_type: "imported" });
  });

  test("importing at an existing path makes a new version; the earlier version stays readable", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "v.txt": "one" });
    const before = await fileAt(alice.client, ds, "v.txt");
    const uri = await existingObject(alice.orgId, "second!");
    const res = await alice.client.post("/v1/files/import", { dataset_id: ds, relative_path: "v.txt", uri, tags: ["re"] });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ file_id: before.file_id, version: 2, size: 7, uri, storage_type: "imported", upload_id: "NO_ID", tags: ["re"], created: before.created });
    const first = (await alice.client.get(`/v1/files/record/${before.file_id}?version_id=1`)).body.data;
    expect(first).toMatchObject({ version: 1, size: 3, uri: before.uri, storage_type: "uploaded", tags: [] });
    expect(await download(alice.client, before.file_id)).toBe("second!");
  });

  test("the URI must name an existing object of the org in the platform's bucket, of the stated size", async () => {
    const ds = await createDataset(alice.client);
    const bucket = t.objectStore.location.bucket;
    const body = (uri: string, extra: object = {}) => ({ dataset_id: ds, relative_path: "x.bin", uri, ...extra });
    expectBadRequest(await alice.client.post("/v1/files/import", body("https://example.com/x.bin")), "uri");
    const foreign = await alice.client.post("/v1/files/import", body("s3://someone-elses-bucket/data/x.bin"));
    expectBadRequest(foreign, "uri");
    expect(foreign.body.error.message).toMatch(/bucket integration/);
    expectBadRequest(await alice.client.post("/v1/files/import", body(`s3://${bucket}/${alice.orgId}/missing/x.bin`)), "uri");
    expectBadRequest(await alice.client.post("/v1/files/import", body(`s3://${bucket}/${alice.orgId}/a//b`)), "uri");
    const bobs = await existingObject(bob.orgId, "bob's");
    expectBadRequest(await alice.client.post("/v1/files/import", body(bobs)), "uri");
    const uri = await existingObject(alice.orgId, "four");
    expectBadRequest(await alice.client.post("/v1/files/import", body(uri, { size: 5 })), "size");
    expectBadRequest(await alice.client.post("/v1/files/import", body(uri, { relative_path: "../x" })), "relative_path");
    expectBadRequest(await alice.client.post("/v1/files/import", body(uri, { tags: [""] })), "tags[0]");
    expectBadRequest(await alice.client.post("/v1/files/import", body(uri, { dataset_id: "" })), "dataset_id");
    expect(await paths(alice.client, ds)).toEqual([]);
  });

  test("an unknown or another org's dataset is 404; a directory's path is 409; a path below a file is 409", async () => {
    const ds = await createDataset(alice.client);
    const uri = await existingObject(alice.orgId, "x");
    expect((await alice.client.post("/v1/files/import", { dataset_id: "ds_nope", relative_path: "x", uri })).status).toBe(404);
    const bobDs = await createDataset(bob.client);
    expect((await alice.client.post("/v1/files/import", { dataset_id: bobDs, relative_path: "x", uri })).status).toBe(404);
    expect((await alice.client.post("/v1/files/import", { dataset_id: ds, relative_path: "d/f.txt", uri })).status).toBe(200);
    expect((await alice.client.post("/v1/files/import", { dataset_id: ds, relative_path: "d", uri })).status).toBe(409);
    expect((await alice.client.post("/v1/files/import", { dataset_id: ds, relative_path: "d/f.txt/g", uri })).status).toBe(409);
  });
});

describe("import_files", () => {
  test("imports every request in one go and returns the files in request order", async () => {
    const ds = await createDataset(alice.client);
    const other = await createDataset(alice.client);
    const requests = [
      { dataset_id: ds, relative_path: "z.txt", uri: await existingObject(alice.orgId, "zz") },
      { dataset_id: other, relative_path: "a/b.txt", uri: await existingObject(alice.orgId, "bbb"), device_id: "robot-9" },
      { dataset_id: ds, relative_path: "a.txt", uri: await existingObject(alice.orgId, "a"), size: 1 },
    ];
    const res = await alice.client.post("/v1/files/import/batch", { requests });
    expect(res.status).toBe(200);
    expect(res.body.data.map((f: { association_id: string; relative_path: string; size: number }) => [f.association_id, f.relative_path, f.size])).toEqual([
      [ds, "z.txt", 2],
      [other, "a/b.txt", 3],
      [ds, "a.txt", 1],
    ]);
    expect(res.body.data[1]).toMatchObject({ device_id: "robot-9", storage_type: "imported", version: 1 });
    expect(await paths(alice.client, ds)).toEqual(["a.txt", "z.txt"]);
  });

  test("one bad request refuses the whole batch, naming the request; nothing is imported", async () => {
    const ds = await createDataset(alice.client);
    const good = { dataset_id: ds, relative_path: "good.txt", uri: await existingObject(alice.orgId, "g") };
    const missing = { dataset_id: ds, relative_path: "bad.txt", uri: `s3://${t.objectStore.location.bucket}/${alice.orgId}/no/such.bin` };
    expectBadRequest(await alice.client.post("/v1/files/import/batch", { requests: [good, good, missing] }), "requests[1].relative_path");
    expectBadRequest(await alice.client.post("/v1/files/import/batch", { requests: [good, missing] }), "requests[1].uri");
    expectBadRequest(await alice.client.post("/v1/files/import/batch", { requests: [good, { ...good, relative_path: "s.txt", size: 9 }] }), "requests[1].size");
    expectBadRequest(await alice.client.post("/v1/files/import/batch", { requests: [good, { ...good, relative_path: "c.txt", dataset_id: "ds_nope" }] }), "requests[1].dataset_id");
    expectBadRequest(await alice.client.post("/v1/files/import/batch", { requests: [] }), "requests");
    expectBadRequest(await alice.client.post("/v1/files/import/batch", { requests: Array.from({ length: 501 }, () => good) }), "requests");
    expect(await paths(alice.client, ds)).toEqual([]);
  });

  test("a conflict in a later request rolls back the earlier ones", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "dir/x.txt": "x" });
    const uri = await existingObject(alice.orgId, "y");
    const res = await alice.client.post("/v1/files/import/batch", {
      requests: [
        { dataset_id: ds, relative_path: "first.txt", uri },
        { dataset_id: ds, relative_path: "dir", uri },
      ],
    });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/^requests\[1\]\.relative_path: /);
    expect(await paths(alice.client, ds)).toEqual(["dir/x.txt"]);
  });
});

describe("link_file", () => {
  test("links another dataset's file: same bytes and storage type, new file, the target's path by default", async () => {
    const src = await createDataset(alice.client);
    const dst = await createDataset(alice.client);
    await uploadFiles(alice.client, src, { "logs/run.csv": "a,b\n" });
    const target = await fileAt(alice.client, src, "logs/run.csv");
    const res = await alice.client.post(`/v1/files/association/id/${dst}/link`, { target_file_id: target.file_id });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      ...target,
      association_id: dst,
      file_id: expect.stringMatching(/^fl_/),
      parent_id: expect.stringMatching(/^dr_/),
      created: expect.any(String),
      modified: expect.any(String),
      upload_id: "NO_ID",
      version: 1,
    });
    expect(res.body.data.file_id).not.toBe(target.file_id);
    expect(await download(alice.client, res.body.data.file_id)).toBe("a,b\n");
    const renamed = await alice.client.post(`/v1/files/association/id/${dst}/link`, { target_file_id: target.file_id, relative_path: "copy.csv" });
    expect(renamed.body.data).toMatchObject({ relative_path: "copy.csv", name: "copy.csv", parent_id: null, uri: target.uri });
  });

  test("links an earlier version of a file", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "v.txt": "one" });
    const v1 = await fileAt(alice.client, ds, "v.txt");
    await uploadFiles(alice.client, ds, { "v.txt": "second" });
    const res = await alice.client.post(`/v1/files/association/id/${ds}/link`, { target_file_id: v1.file_id, target_version: 1, relative_path: "old/v.txt" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ relative_path: "old/v.txt", size: 3, uri: v1.uri, version: 1 });
    expect(await download(alice.client, res.body.data.file_id)).toBe("one");
    const current = await alice.client.post(`/v1/files/association/id/${ds}/link`, { target_file_id: v1.file_id, target_version: 2, relative_path: "new.txt" });
    expect(current.body.data).toMatchObject({ size: 6 });
  });

  test("a taken path is 409; unknown targets, versions and datasets are 404, as are another org's", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "f.txt": "f" });
    const file = await fileAt(alice.client, ds, "f.txt");
    const link = (client: ApiClient, association: string, body: object) => client.post(`/v1/files/association/id/${association}/link`, body);
    expect((await link(alice.client, ds, { target_file_id: file.file_id })).status).toBe(409);
    expect((await link(alice.client, ds, { target_file_id: file.file_id, relative_path: "f.txt/below" })).status).toBe(409);
    expect((await link(alice.client, ds, { target_file_id: "fl_nope", relative_path: "n.txt" })).status).toBe(404);
    expect((await link(alice.client, ds, { target_file_id: file.file_id, target_version: 7, relative_path: "n.txt" })).status).toBe(404);
    expect((await link(alice.client, "ds_nope", { target_file_id: file.file_id })).status).toBe(404);
    expectBadRequest(await link(alice.client, ds, { target_file_id: file.file_id, relative_path: "a/../b" }), "relative_path");
    const bobDs = await createDataset(bob.client);
    expect((await link(bob.client, bobDs, { target_file_id: file.file_id })).status).toBe(404);
    expect((await link(bob.client, ds, { target_file_id: file.file_id, relative_path: "n.txt" })).status).toBe(404);
    expect(await paths(alice.client, ds)).toEqual(["f.txt"]);
  });
});

interface ExportStatus {
  status: string;
  download_url: string | null;
  error: string | null;
  bytes_uploaded: number;
  total_bytes: number;
}

async function startExport(client: ApiClient, nodeIds: string[]): Promise<string> {
  const res = await client.post("/v1/files/export", { node_ids: nodeIds });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ export_job_id: expect.stringMatching(/^ex_/) });
  return res.body.data.export_job_id;
}

async function finished(client: ApiClient, jobId: string): Promise<ExportStatus> {
  return waitFor(`export ${jobId}`, async () => {
    const res = await client.get(`/v1/files/export/id/${jobId}`);
    expect(res.status).toBe(200);
    const status = res.body.data as ExportStatus;
    return status.status === "completed" || status.status === "failed" ? status : undefined;
  });
}

/** Reads a ZIP through its central directory; checks each entry's CRC and returns name -> content. */
function unzip(archive: Buffer): Record<string, string> {
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = archive.readUInt16LE(end + 10);
  let at = archive.readUInt32LE(end + 16);
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    expect(archive.readUInt32LE(at)).toBe(0x02014b50);
    const [crc, compressed, size] = [archive.readUInt32LE(at + 16), archive.readUInt32LE(at + 20), archive.readUInt32LE(at + 24)];
    const [nameLength, extraLength, commentLength] = [archive.readUInt16LE(at + 28), archive.readUInt16LE(at + 30), archive.readUInt16LE(at + 32)];
    const local = archive.readUInt32LE(at + 42);
    const name = archive.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    const dataStart = local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28);
    const data = inflateRawSync(archive.subarray(dataStart, dataStart + compressed));
    expect({ name, size: data.length, crc: crc32(data) }).toEqual({ name, size, crc });
    out[name] = data.toString("utf8");
    at += 46 + nameLength + extraLength + commentLength;
  }
  return out;
}

async function downloadZip(url: string): Promise<Record<string, string>> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return unzip(Buffer.from(await res.arrayBuffer()));
}

describe("export_files and get_export_status", () => {
  test("exports files and directories into a ZIP of their relative paths", async () => {
    const ds = await createDataset(alice.client);
    const files = { "a.txt": "alpha", "logs/b.csv": "x,y\n1,2\n", "logs/deep/c.bin": "c".repeat(10_000), "other/d.txt": "not exported" };
    await uploadFiles(alice.client, ds, files);
    const a = await fileAt(alice.client, ds, "a.txt");
    const logs = (await fileAt(alice.client, ds, "logs/b.csv")).parent_id;
    const jobId = await startExport(alice.client, [a.file_id, logs, a.file_id]);
    const status = await finished(alice.client, jobId);
    const total = 5 + 8 + 10_000;
    expect(status).toEqual({ status: "completed", download_url: expect.stringMatching(/^http/), error: null, bytes_uploaded: total, total_bytes: total });
    expect(await downloadZip(status.download_url!)).toEqual({ "a.txt": "alpha", "logs/b.csv": "x,y\n1,2\n", "logs/deep/c.bin": "c".repeat(10_000) });
  });

  test("files of several datasets are archived below their dataset ids", async () => {
    const one = await createDataset(alice.client);
    const two = await createDataset(alice.client);
    const first = (await alice.client.post("/v1/files/import", { dataset_id: one, relative_path: "same.txt", uri: await existingObject(alice.orgId, "1") })).body.data;
    const second = (await alice.client.post("/v1/files/import", { dataset_id: two, relative_path: "same.txt", uri: await existingObject(alice.orgId, "2") })).body.data;
    const status = await finished(alice.client, await startExport(alice.client, [first.file_id, second.file_id]));
    expect(await downloadZip(status.download_url!)).toEqual({ [`${one}/same.txt`]: "1", [`${two}/same.txt`]: "2" });
  });

  test("an export whose object is gone fails, naming the file", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "kept.txt": "k", "gone.txt": "g" });
    const gone = await fileAt(alice.client, ds, "gone.txt");
    await t.objectStore.deleteObjects([keyOfUri(gone.uri)]);
    const kept = await fileAt(alice.client, ds, "kept.txt");
    const status = await finished(alice.client, await startExport(alice.client, [kept.file_id, gone.file_id]));
    expect(status).toMatchObject({ status: "failed", download_url: null, total_bytes: 2 });
    expect(status.error).toMatch(/gone\.txt/);
  });

  test("a job left running by a stopped service reads as failed once its heartbeat is stale", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "s.txt": "s" });
    const jobId = await startExport(alice.client, [(await fileAt(alice.client, ds, "s.txt")).file_id]);
    await finished(alice.client, jobId);
    await db.query("update data.export_jobs set status = 'running', error = null, heartbeat = now() - interval '1 hour' where export_job_id = $1", [jobId]);
    const res = await alice.client.get(`/v1/files/export/id/${jobId}`);
    expect(res.body.data).toMatchObject({ status: "failed", download_url: null, error: expect.stringMatching(/interrupted/) });
  });

  test("bad node ids are 400s naming the entry; another org's jobs and nodes are not found", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "mine.txt": "m" });
    const mine = await fileAt(alice.client, ds, "mine.txt");
    expectBadRequest(await alice.client.post("/v1/files/export", { node_ids: [] }), "node_ids");
    expectBadRequest(await alice.client.post("/v1/files/export", { node_ids: [mine.file_id, "fl_nope"] }), "node_ids[1]");
    expectBadRequest(await bob.client.post("/v1/files/export", { node_ids: [mine.file_id] }), "node_ids[0]");
    const jobId = await startExport(alice.client, [mine.file_id]);
    expect((await bob.client.get(`/v1/files/export/id/${jobId}`)).status).toBe(404);
    expect((await alice.client.get("/v1/files/export/id/ex_nope")).status).toBe(404);
    expect((await finished(alice.client, jobId)).status).toBe("completed");
  });
});

describe("file_device_ids", () => {
  test("answers the distinct device ids of the files, sorted; unknown ids and other orgs' files count for nothing", async () => {
    const ds = await createDataset(alice.client);
    const imported = async (path: string, deviceId?: string) =>
      (await alice.client.post("/v1/files/import", { dataset_id: ds, relative_path: path, uri: await existingObject(alice.orgId, path), ...(deviceId ? { device_id: deviceId } : {}) })).body.data.file_id as string;
    const ids = [await imported("1", "robot-b"), await imported("2", "robot-a"), await imported("3", "robot-b"), await imported("4")];
    const res = await alice.client.post("/v1/devices/infer", { file_ids: [...ids, "fl_nope"] });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ device_ids: ["robot-a", "robot-b"] });
    expect((await bob.client.post("/v1/devices/infer", { file_ids: ids })).body.data).toEqual({ device_ids: [] });
    expect((await alice.client.post("/v1/devices/infer", { file_ids: [] })).body.data).toEqual({ device_ids: [] });
    expectBadRequest(await alice.client.post("/v1/devices/infer", { file_ids: Array.from({ length: 1001 }, (_, i) => `fl_${i}`) }), "file_ids");
  });
});

describe("shared objects", () => {
  test("deleting a link keeps the target's bytes; deleting the last file pointing at an object removes them", async () => {
    const tenant = await createTenant(t, "shared-objects");
    const source = await createDataset(tenant.client, "source");
    const other = await createDataset(tenant.client, "other");
    await uploadFiles(tenant.client, source, { "shared.bin": "shared bytes" });
    const target = (await tenant.client.get(`/v1/files/record/path/shared.bin/association/${source}`)).body.data;
    const link = await tenant.client.post(`/v1/files/association/id/${other}/link`, { target_file_id: target.file_id });
    expect(link.status).toBe(200);
    const key = target.uri.replace(/^s3:\/\/[^/]+\//, "");
    expect((await tenant.client.delete(`/v1/files/${link.body.data.file_id}`)).status).toBe(200);
    expect(await t.objectStore.head(key)).toMatchObject({ size: 12 });
    expect(await (await fetch((await tenant.client.get(`/v1/files/${target.file_id}/signed-url`)).body.data.url)).text()).toBe("shared bytes");
    expect((await tenant.client.delete(`/v1/files/${target.file_id}`)).status).toBe(200);
    expect(await t.objectStore.head(key)).toBeUndefined();
  });

  test("an upload below a path that is a file is refused with 409", async () => {
    const tenant = await createTenant(t, "file-as-dir");
    const ds = await createDataset(tenant.client);
    await uploadFiles(tenant.client, ds, { "a.txt": "a" });
    await expect(uploadFiles(tenant.client, ds, { "a.txt/b.txt": "b" })).rejects.toThrow(/complete failed.*409|is a file/);
  });
});
