import { Client } from "pg";
import {
  createDataset,
  createDevice,
  createDeviceType,
  expectError,
  keyOfUri,
  startTestPlatform,
  startWithTenants,
  uploadFiles,
  waitFor,
  createTenant,
  type ApiClient,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// What deleting a dataset, device or device type does to the files it owns (issue 9): they vanish
// from every read when the delete answers, and a background cleanup removes their rows, upload
// transactions and bytes (except bytes a link or import elsewhere still points at), also across a
// restart. And a file is `pending` while its first upload is open: reads by id and path show it,
// listings and queries do not.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["lifecycle-alice", "lifecycle-bob"]);
});
afterAll(() => t?.close());

const q = encodeURIComponent;
const byId = (client: ApiClient, fileId: string) => client.get(`/v1/files/record/${fileId}`);
const byPath = (client: ApiClient, association: string, path: string) => client.get(`/v1/files/record/path/${q(path)}/association/${q(association)}`);
const fileOf = async (client: ApiClient, association: string, path: string) => {
  const res = await byPath(client, association, path);
  expect(res.status).toBe(200);
  return res.body.data;
};
const ofAssociation = (associationId: string) => ({ condition: { field: "association_id", comparator: "EQUALS", value: associationId } });
const download = async (client: ApiClient, fileId: string) => {
  const res = await client.get(`/v1/files/${fileId}/signed-url`);
  expect(res.status).toBe(200);
  return (await fetch(res.body.data.url)).text();
};

interface Leftovers {
  nodes: number;
  versions: number;
  uploads: number;
  queued: number;
}

/** What is left of an association in the data service's tables: files and directories, earlier versions (of `fileIds`), uploads, its queued cleanup. */
async function leftovers(platform: TestPlatform, associationId: string, fileIds: string[] = []): Promise<Leftovers> {
  const rows = await platform.platform.services.data.orm.em
    .fork()
    .getConnection()
    .execute(
      `select (select count(*) from fs_nodes where association_id = ?)::int as nodes,
              (select count(*) from file_versions where file_id = any(?::text[]))::int as versions,
              (select count(*) from upload_transactions where association_id = ?)::int as uploads,
              (select count(*) from association_deletions where association_id = ? and finished is null)::int as queued`,
      [associationId, `{${fileIds.join(",")}}`, associationId, associationId],
    );
  return rows[0] as Leftovers;
}

/** Waits until nothing of an association (and of the earlier versions of `fileIds`) is left in the tables. */
const cleanedUp = (platform: TestPlatform, associationId: string, fileIds: string[] = []) =>
  waitFor(`the cleanup of ${associationId}`, async () => {
    const left = await leftovers(platform, associationId, fileIds);
    return left.nodes + left.versions + left.uploads + left.queued === 0 ? true : undefined;
  });

/** Waits until an object is gone from the store. */
const objectGone = (platform: TestPlatform, uri: string) =>
  waitFor(`the bytes of ${uri} to go`, async () => ((await platform.objectStore.head(keyOfUri(uri))) === undefined ? true : undefined));

describe("deleting a dataset", () => {
  test("its files, directories and open uploads vanish from every read at once; the cleanup removes rows and bytes, keeping those links and imports share", async () => {
    const ds = await createDataset(alice.client, "doomed");
    const other = await createDataset(alice.client, "other");
    await uploadFiles(alice.client, ds, { "a/linked.txt": "linked", "a/imported.txt": "imported", "a/only.txt": "only", "top.txt": "top v1" });
    const first = await fileOf(alice.client, ds, "top.txt");
    await uploadFiles(alice.client, ds, { "top.txt": "top v2" });
    const open = await uploadFiles(alice.client, ds, { "open.txt": "open", "top.txt": "top v3" }, { complete: false });
    const [linked, imported, only, top, pending] = await Promise.all(["a/linked.txt", "a/imported.txt", "a/only.txt", "top.txt", "open.txt"].map((p) => fileOf(alice.client, ds, p)));
    expect(pending.status).toBe("pending");
    expect(top.version).toBe(2);
    const link = await alice.client.post(`/v1/files/association/id/${other}/link`, { target_file_id: linked.file_id, relative_path: "kept-link.txt" });
    expect(link.status).toBe(200);
    const kept = await alice.client.post("/v1/files/import", { dataset_id: other, relative_path: "kept-import.txt", uri: imported.uri });
    expect(kept.status).toBe(200);
    expect((await alice.client.post("/v1/files/query/count", ofAssociation(ds))).body.data).toBe(4);
    expect(await leftovers(t, ds, [top.file_id])).toEqual({ nodes: 6, versions: 1, uploads: 3, queued: 0 });

    expect(await alice.client.delete(`/v1/datasets/${ds}`)).toMatchObject({ status: 200, body: { data: null } });

    for (const file of [linked, imported, only, top, pending]) {
      expectError(await byId(alice.client, file.file_id), 404, `file '${file.file_id}' not found`);
      expectError(await byPath(alice.client, ds, file.relative_path), 404, `file '${ds}:${file.relative_path}' not found`);
      expectError(await alice.client.get(`/v1/files/${file.file_id}/signed-url`), 404, `file '${file.file_id}' not found`);
    }
    expectError(await alice.client.get(`/v1/files/record/${first.file_id}?version_id=1`), 404, `file '${first.file_id}' not found`);
    expectError(await alice.client.get(`/v1/datasets/${ds}`), 404, `dataset '${ds}' not found`);
    expectError(await alice.client.get(`/v1/files/association/id/${ds}`), 404, `dataset '${ds}' not found`);
    expectError(await alice.client.post(`/v1/datasets/${ds}/files/query`, {}), 404, `dataset '${ds}' not found`);
    const searched = await alice.client.post("/v1/files/query", ofAssociation(ds));
    expect(searched.body.data).toEqual({ items: [], total_count: 0, next_token: null });
    expect((await alice.client.post("/v1/files/query/count", ofAssociation(ds))).body.data).toBe(0);
    expect((await alice.client.post("/v1/devices/infer", { file_ids: [linked.file_id] })).body.data).toEqual({ device_ids: [] });
    expectError(await alice.client.post(`/v1/files/association/id/${other}/link`, { target_file_id: only.file_id }), 404, `file '${only.file_id}' not found`);
    // Aborted by the delete, then removed by the cleanup, which may already have run.
    const completed = await alice.client.put(`/v1/files/upload/${open.transactionId}/complete`);
    if (completed.status === 409) expectError(completed, 409, `upload transaction '${open.transactionId}' was aborted`);
    else expectError(completed, 404, `upload transaction '${open.transactionId}' not found`);

    await cleanedUp(t, ds, [top.file_id]);
    for (const uri of [only.uri, first.uri, top.uri, pending.uri, open.mappings["top.txt"]!]) await objectGone(t, uri);
    expect(await download(alice.client, link.body.data.file_id)).toBe("linked");
    expect(await download(alice.client, kept.body.data.file_id)).toBe("imported");
    expectError(await alice.client.put(`/v1/files/upload/${open.transactionId}/complete`), 404, `upload transaction '${open.transactionId}' not found`);
  });

  test("a second delete is a 404 and changes nothing; of two at once one wins; another org's caller cannot delete it", async () => {
    const ds = await createDataset(alice.client, "twice");
    await uploadFiles(alice.client, ds, { "x.txt": "x" });
    expectError(await bob.client.delete(`/v1/datasets/${ds}`), 404, `dataset '${ds}' not found`);
    expect((await fileOf(alice.client, ds, "x.txt")).status).toBe("available");

    const statuses = (await Promise.all([alice.client.delete(`/v1/datasets/${ds}`), alice.client.delete(`/v1/datasets/${ds}`)])).map((r) => r.status);
    expect(statuses.sort()).toEqual([200, 404]);
    expectError(await alice.client.delete(`/v1/datasets/${ds}`), 404, `dataset '${ds}' not found`);
    await cleanedUp(t, ds);
    expectError(await alice.client.delete(`/v1/datasets/${ds}`), 404, `dataset '${ds}' not found`);
  });

  test("a write that found the dataset just before its deletion is refused once the deletion commits, instead of adding a file nobody can see", async () => {
    const ds = await createDataset(alice.client, "racing");
    const key = `${alice.orgId}/imports/racing.bin`;
    await t.objectStore.putObject(key, Buffer.from("racing"));
    // The test holds the dataset's path lock, so that the delete and then the import queue behind it in that order.
    const db = new Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      await db.query("begin");
      await db.query("select pg_advisory_xact_lock(hashtextextended($1, 0))", [`files:${ds}`]);
      const waiting = (n: number) =>
        waitFor(`${n} waiting for the path lock`, async () => {
          const res = await db.query("select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())");
          return res.rows[0].n === n ? true : undefined;
        });
      const deleting = alice.client.delete(`/v1/datasets/${ds}`);
      await waiting(1);
      const importing = alice.client.post("/v1/files/import", { dataset_id: ds, relative_path: "late.bin", uri: `s3://${t.objectStore.location.bucket}/${key}` });
      await waiting(2);
      await db.query("commit");
      expect((await deleting).status).toBe(200);
      expectError(await importing, 404, `dataset '${ds}' not found`);
    } finally {
      await db.end();
    }
    await cleanedUp(t, ds);
  });

  test("the files vanish while their rows are still there; a restart in the middle of the cleanup finishes it", async () => {
    // One batch of two rows an hour: after the delete's own wake-up the cleanup stands still until the restart.
    let slow = await startTestPlatform({ s3: true, data: { cleanup: { intervalMs: 3_600_000, batchSize: 2, batchesPerRun: 1 } } });
    try {
      const carol = (await createTenant(slow, "lifecycle-restart")).client;
      const ds = await createDataset(carol, "restart");
      const files = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`d${i % 2}/f${i}.txt`, `bytes ${i}`]));
      const { mappings } = await uploadFiles(carol, ds, files);
      const records = await Promise.all(Object.keys(files).map((p) => fileOf(carol, ds, p)));
      expect(await leftovers(slow, ds)).toEqual({ nodes: 10, versions: 0, uploads: 1, queued: 0 });

      expect((await carol.delete(`/v1/datasets/${ds}`)).status).toBe(200);
      const partial = await waitFor("one batch of the cleanup", async () => {
        const left = await leftovers(slow, ds);
        return left.nodes === 8 ? left : undefined;
      });
      expect(partial).toEqual({ nodes: 8, versions: 0, uploads: 1, queued: 1 });
      for (const file of records) {
        expectError(await byId(carol, file.file_id), 404, `file '${file.file_id}' not found`);
        expectError(await byPath(carol, ds, file.relative_path), 404, `file '${ds}:${file.relative_path}' not found`);
      }
      expect((await carol.post("/v1/files/query", ofAssociation(ds))).body.data).toEqual({ items: [], total_count: 0, next_token: null });
      expect((await carol.post("/v1/files/query/count", {})).body.data).toBe(0);
      expect((await carol.post("/v1/devices/infer", { file_ids: records.map((f) => f.file_id) })).body.data).toEqual({ device_ids: [] });
      expect(await leftovers(slow, ds)).toEqual(partial);
      const previous = { databaseUrl: slow.databaseUrl, namespace: slow.namespace, adminToken: slow.adminToken, internalAuthSecret: slow.internalAuthSecret, s3: slow.s3 };
      await slow.close();

      slow = await startTestPlatform({ s3: true, restartOf: previous });
      await cleanedUp(slow, ds);
      for (const uri of Object.values(mappings)) await objectGone(slow, uri);
    } finally {
      await slow.close();
    }
  });
});

describe("deleting a device or device type", () => {
  test("a device's files vanish from every read at once and the cleanup removes them and their bytes, except bytes a link still needs", async () => {
    const device = await createDevice(alice.client, { device_id: "lifecycle/robot" });
    const id = device.universal_device_id as string;
    await uploadFiles(alice.client, id, { "cfg/arm.yaml": "arm", "shared.bin": "shared" }, { associationType: "device" });
    const open = await uploadFiles(alice.client, id, { "later.txt": "later" }, { associationType: "device", complete: false });
    const [arm, shared, later] = await Promise.all(["cfg/arm.yaml", "shared.bin", "later.txt"].map((p) => fileOf(alice.client, id, p)));
    expect(later.status).toBe("pending");
    const ds = await createDataset(alice.client, "keeps-a-link");
    const link = await alice.client.post(`/v1/files/association/id/${ds}/link`, { target_file_id: shared.file_id });
    expect(link.status).toBe(200);

    expect(await alice.client.delete(`/v1/devices/id/${q(device.device_id)}`)).toMatchObject({ status: 200, body: { data: null } });
    for (const file of [arm, shared, later]) expectError(await byId(alice.client, file.file_id), 404, `file '${file.file_id}' not found`);
    expectError(await byPath(alice.client, id, "cfg/arm.yaml"), 404, `device '${id}' not found`);
    expect((await alice.client.post("/v1/files/query", ofAssociation(id))).body.data.items).toEqual([]);
    expect((await alice.client.post("/v1/files/query/count", ofAssociation(id))).body.data).toBe(0);

    await cleanedUp(t, id);
    for (const uri of [arm.uri, later.uri]) await objectGone(t, uri);
    expect(await download(alice.client, link.body.data.file_id)).toBe("shared");
    expectError(await alice.client.put(`/v1/files/upload/${open.transactionId}/complete`), 404, `upload transaction '${open.transactionId}' not found`);
  });

  test("a device type's files go the same way", async () => {
    const type = (await createDeviceType(alice.client, { name: "lifecycle-type" })).device_type_id as string;
    await uploadFiles(alice.client, type, { "defaults.yaml": "d: 1" }, { associationType: "device_type" });
    const file = await fileOf(alice.client, type, "defaults.yaml");
    expect((await alice.client.delete(`/v1/device-types/id/${type}`)).status).toBe(200);
    expectError(await byId(alice.client, file.file_id), 404, `file '${file.file_id}' not found`);
    expect((await alice.client.post("/v1/files/query/count", ofAssociation(type))).body.data).toBe(0);
    await cleanedUp(t, type);
    await objectGone(t, file.uri);
  });
});

describe("a pending file", () => {
  test("reads by id and path with status pending while its upload is open, and available once complete; listings and queries leave it out", async () => {
    const ds = await createDataset(alice.client, "pending");
    const open = await uploadFiles(alice.client, ds, { "run/log.txt": "log" }, { complete: false });
    const pending = await fileOf(alice.client, ds, "run/log.txt");
    expect(pending).toMatchObject({ status: "pending", association_id: ds, relative_path: "run/log.txt", size: 3, upload_id: open.transactionId, uri: open.mappings["run/log.txt"] });
    expect((await byId(alice.client, pending.file_id)).body.data).toEqual(pending);
    expect((await alice.client.post(`/v1/datasets/${ds}/files/query`, {})).body.data.items).toEqual([]);
    expect((await alice.client.post("/v1/files/query", ofAssociation(ds))).body.data.items).toEqual([]);
    expect((await alice.client.post("/v1/files/query/count", ofAssociation(ds))).body.data).toBe(0);
    expectError(await alice.client.get(`/v1/files/${pending.file_id}/signed-url`), 400, `file '${pending.file_id}' is still being uploaded`);
    expectError(await byPath(bob.client, ds, "run/log.txt"), 404, `file '${ds}:run/log.txt' not found`);
    expectError(await byId(bob.client, pending.file_id), 404, `file '${pending.file_id}' not found`);

    expect((await alice.client.put(`/v1/files/upload/${open.transactionId}/complete`)).status).toBe(200);
    const available = await fileOf(alice.client, ds, "run/log.txt");
    expect(available).toMatchObject({ file_id: pending.file_id, status: "available", size: 3 });
    expect((await byId(alice.client, pending.file_id)).body.data.status).toBe("available");
    expect((await alice.client.post(`/v1/datasets/${ds}/files/query`, {})).body.data.items.map((f: { file_id: string }) => f.file_id)).toEqual([pending.file_id]);
  });

  test("by path, an available file wins over a pending one at the same path", async () => {
    const ds = await createDataset(alice.client, "pending-vs-available");
    await uploadFiles(alice.client, ds, { "p.txt": "first" }, { complete: false });
    const pending = await fileOf(alice.client, ds, "p.txt");
    await uploadFiles(alice.client, ds, { "p.txt": "second" });
    const available = await fileOf(alice.client, ds, "p.txt");
    expect(available).toMatchObject({ status: "available", size: 6 });
    expect(available.file_id).not.toBe(pending.file_id);
  });
});
