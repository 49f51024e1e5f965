import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { mintInvocationToken } from "@hangar/shared";
import { apiClient, createDataset, createDevice, expectBadRequest, startWithTenants, uploadFiles, type ApiClient, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { createAction, invoke } from "./invocation-fixtures";

// `.hangar/` is the platform's own tree in a dataset (the derived files of ingestion): a user's
// upload, move, import, link or directory never lands there (a 400 naming the field, nothing
// written). Nor does an ordinary action's: only an invocation of one of the platform's built-in
// actions writes there (the MCAP ingestion's derived files: test/e2e/mcap-ingestion.e2e.ts).

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

/** Every path of a dataset, derived ones included (a directory listing would hide `.hangar`). */
async function nodePaths(datasetId: string): Promise<string[]> {
  const { rows } = await db.query<{ relative_path: string }>("select relative_path from data.fs_nodes where association_id = $1", [datasetId]);
  return rows.map((row) => row.relative_path).sort();
}

/** A dataset of alice's holding `a.txt` and the directory `dir`, with their ids. */
async function datasetWithFile(): Promise<{ ds: string; fileId: string; dirId: string }> {
  const ds = await createDataset(alice.client);
  await uploadFiles(alice.client, ds, { "a.txt": "a" });
  const fileId = (await alice.client.get(`/v1/files/record/path/a.txt/association/${ds}`)).body.data.file_id;
  const dirId = (await alice.client.put(`/v1/datasets/${ds}/directory`, { name: "dir" })).body.data.directory_id;
  return { ds, fileId, dirId };
}

const beginBatch = (client: ApiClient, ds: string, path: string) =>
  client.post("/v1/files/upload", { association: { association_id: ds, association_type: "dataset" }, origination: "test", resource_manifest: { [path]: 1 } });

describe("uploads into .hangar/ are refused", () => {
  test.each([".hangar/derived/fl_x/t.mcap", "./.hangar/mine.txt", "/.hangar/mine.txt", ".hangar"])("a batch manifest naming %s", async (path) => {
    const { ds } = await datasetWithFile();
    expectBadRequest(await beginBatch(alice.client, ds, path), `resource_manifest.${path}`);
    expect(await nodePaths(ds)).toEqual(["a.txt", "dir"]);
  });

  test("the single-file begins name file_path; a name that only starts like it is an ordinary path", async () => {
    const { ds } = await datasetWithFile();
    expectBadRequest(await alice.client.post(`/v1/datasets/${ds}/uploads`, { file_path: ".hangar/x.txt", file_size: 1 }), "file_path");
    const signed = { association: { association_id: ds, association_type: "dataset" }, file_path: ".hangar/derived/x.txt", file_size: 1, origination: "t" };
    expectBadRequest(await alice.client.post("/v1/files/upload/signed-url", signed), "file_path");
    expect(await nodePaths(ds)).toEqual(["a.txt", "dir"]);
    await uploadFiles(alice.client, ds, { ".hangarish/b.txt": "b", "dir/.hangar/c.txt": "c" });
    expect(await nodePaths(ds)).toEqual([".hangarish", ".hangarish/b.txt", "a.txt", "dir", "dir/.hangar", "dir/.hangar/c.txt"]);
  });

  test("an invocation of a user's own action is an ordinary writer: its token is refused there too", async () => {
    const { ds } = await datasetWithFile();
    const invocationId = (await invoke(alice.client, ds, (await createAction(alice.client)).name)).invocation_id;
    // The token the runner hands that action (ROBOTO_API_KEY), minted as the runner lease mints it.
    const token = mintInvocationToken({ orgId: alice.orgId, userId: alice.userId, invocationId, exp: Math.floor(Date.now() / 1000) + 600 }, t.internalAuthSecret);
    const asAction = apiClient(t.url, token);
    expectBadRequest(await beginBatch(asAction, ds, ".hangar/derived/fl_x/t.mcap"), "resource_manifest..hangar/derived/fl_x/t.mcap");
    expectBadRequest(await asAction.post(`/v1/datasets/${ds}/uploads`, { file_path: "./.hangar/x.txt", file_size: 1 }), "file_path");
    expect(await nodePaths(ds)).toEqual(["a.txt", "dir"]);
    // The same token writes ordinary paths as its user would.
    await uploadFiles(asAction, ds, { "out/result.txt": "r" });
    expect(await nodePaths(ds)).toEqual(["a.txt", "dir", "out", "out/result.txt"]);
  });

  test("another org's caller is told the dataset does not exist, not where the path may go", async () => {
    const { ds } = await datasetWithFile();
    expect((await beginBatch(bob.client, ds, ".hangar/x.txt")).status).toBe(404);
    expect(await nodePaths(ds)).toEqual(["a.txt", "dir"]);
  });
});

describe("directories, moves, imports and links into .hangar/ are refused", () => {
  test("create_directory: the name at the root, or a parent path inside", async () => {
    const { ds } = await datasetWithFile();
    expectBadRequest(await alice.client.put(`/v1/datasets/${ds}/directory`, { name: ".hangar" }), "name");
    expectBadRequest(await alice.client.put(`/v1/datasets/${ds}/directory`, { name: "mine", parent_path: ".hangar/derived", create_intermediate_dirs: true }), "parent_path");
    expect(await nodePaths(ds)).toEqual(["a.txt", "dir"]);
    expect((await bob.client.put(`/v1/datasets/${ds}/directory`, { name: ".hangar" })).status).toBe(404);
  });

  test("rename_directory and move_file name new_path; move_nodes names the operation's field", async () => {
    const { ds, fileId, dirId } = await datasetWithFile();
    expectBadRequest(await alice.client.put(`/v1/datasets/${ds}/directory/rename`, { old_path: "dir", new_path: ".hangar" }), "new_path");
    expectBadRequest(await alice.client.put(`/v1/files/${fileId}/rename`, { association_id: ds, new_path: ".hangar/derived/a.txt" }), "new_path");
    expectBadRequest(await alice.client.put(`/v1/datasets/${ds}/files/move`, { operations: [{ node_id: fileId, fs_type: "file", new_name: ".hangar" }] }), "operations[0].new_name");
    expectBadRequest(
      await alice.client.put(`/v1/datasets/${ds}/files/move`, { operations: [{ node_id: dirId, fs_type: "directory", new_name: ".hangar" }, { node_id: fileId, fs_type: "file", new_parent_id: dirId }] }),
      "operations[0].new_name",
    );
    expect(await nodePaths(ds)).toEqual(["a.txt", "dir"]);
    expect((await bob.client.put(`/v1/files/${fileId}/rename`, { association_id: ds, new_path: ".hangar/a.txt" })).status).toBe(404);
  });

  test("import_file names relative_path and registers nothing", async () => {
    const { ds } = await datasetWithFile();
    const key = `${alice.orgId}/imports/${randomBytes(4).toString("hex")}/obj.bin`;
    await t.objectStore.putObject(key, Buffer.from("bytes"));
    const uri = `s3://${t.objectStore.location.bucket}/${key}`;
    expectBadRequest(await alice.client.post("/v1/files/import", { dataset_id: ds, relative_path: ".hangar/derived/obj.bin", uri }), "relative_path");
    expect(await nodePaths(ds)).toEqual(["a.txt", "dir"]);
  });

  test("a link names relative_path", async () => {
    const { fileId } = await datasetWithFile();
    const device = await createDevice(alice.client, { device_id: `robot-${randomBytes(4).toString("hex")}` });
    const link = await alice.client.put(`/v1/files/association/id/${q(device.universal_device_id)}/link`, { relative_path: ".hangar/link.txt", target_file_id: fileId });
    expectBadRequest(link, "relative_path");
    expect(await nodePaths(device.universal_device_id)).toEqual([]);
  });
});
