import {
  createDataset,
  expectBadRequest,
  expectError,
  startWithTenants,
  uploadFiles,
  type ApiClient,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// Directories (create, rename, delete, list, count, paths), moves and bulk file deletion.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
});
afterAll(() => t?.close());

const q = encodeURIComponent;

async function paths(client: ApiClient, datasetId: string): Promise<string[]> {
  const res = await client.post(`/v1/datasets/${datasetId}/files/query`, {});
  return res.body.data.items.map((f: { relative_path: string }) => f.relative_path);
}

async function listing(client: ApiClient, datasetId: string, dir: string, query = "") {
  const res = await client.get(`/v1/datasets/${datasetId}/directory/${q(dir)}${query}`);
  expect(res.status).toBe(200);
  return res.body.data as { files: { name: string }[]; directories: { name: string; directory_id: string }[]; next_token: string | null };
}

describe("create_directory", () => {
  test("creates a directory with the documented fields; uploads below it see it as their parent", async () => {
    const ds = await createDataset(alice.client);
    const res = await alice.client.put(`/v1/datasets/${ds}/directory`, { name: "raw", origination: "cli" });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      association_id: ds,
      created: expect.any(String),
      created_by: alice.userId,
      description: null,
      directory_id: expect.stringMatching(/^dr_/),
      fs_type: "directory",
      metadata: {},
      modified: expect.any(String),
      modified_by: alice.userId,
      name: "raw",
      org_id: alice.orgId,
      origination: "cli",
      parent_id: null,
      relative_path: "raw",
      status: "available",
      storage_type: "uploaded",
      tags: [],
      upload_id: "NO_ID",
    });
    await uploadFiles(alice.client, ds, { "raw/a.bin": "a" });
    const file = (await alice.client.get(`/v1/files/record/path/${q("raw/a.bin")}/association/${ds}`)).body.data;
    expect(file.parent_id).toBe(res.body.data.directory_id);
  });

  test("an existing directory is returned, or refused with 409 when error_if_exists", async () => {
    const ds = await createDataset(alice.client);
    const first = (await alice.client.put(`/v1/datasets/${ds}/directory`, { name: "d" })).body.data;
    expect((await alice.client.put(`/v1/datasets/${ds}/directory`, { name: "d" })).body.data.directory_id).toBe(first.directory_id);
    expect((await alice.client.put(`/v1/datasets/${ds}/directory`, { name: "d", error_if_exists: true })).status).toBe(409);
  });

  test("a missing parent is 404 unless create_intermediate_dirs", async () => {
    const ds = await createDataset(alice.client);
    expect((await alice.client.put(`/v1/datasets/${ds}/directory`, { name: "c", parent_path: "a/b" })).status).toBe(404);
    const made = await alice.client.put(`/v1/datasets/${ds}/directory`, { name: "c", parent_path: "a/b", create_intermediate_dirs: true });
    expect(made.body.data.relative_path).toBe("a/b/c");
    const b = (await listing(alice.client, ds, "a")).directories;
    expect(b.map((d) => d.name)).toEqual(["b"]);
    expect(made.body.data.parent_id).toBe(b[0]!.directory_id);
  });

  test("the association route creates in the same place; bad names are 400s; another org gets 404", async () => {
    const ds = await createDataset(alice.client);
    expect((await alice.client.put(`/v1/files/association/id/${ds}/directory`, { name: "via-assoc" })).body.data.relative_path).toBe("via-assoc");
    expectBadRequest(await alice.client.put(`/v1/datasets/${ds}/directory`, { name: ".." }), "name");
    expectBadRequest(await alice.client.put(`/v1/datasets/${ds}/directory`, { name: "x/y" }), "name");
    expectBadRequest(await alice.client.put(`/v1/datasets/${ds}/directory`, {}), "name");
    expect((await bob.client.put(`/v1/datasets/${ds}/directory`, { name: "b" })).status).toBe(404);
  });
});

describe("list, count and paths", () => {
  let ds: string;
  beforeAll(async () => {
    ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "top.txt": "1", "logs/a.log": "22", "logs/.hidden": "3", "logs/deep/b.log": "4", ".secret/c": "5" });
  });

  test("list_directory shows direct children, directories first, hidden entries only on request", async () => {
    const root = await listing(alice.client, ds, "/");
    expect(root.directories.map((d) => d.name)).toEqual(["logs"]);
    expect(root.files.map((f) => f.name)).toEqual(["top.txt"]);
    const withHidden = await listing(alice.client, ds, "/", "?show_hidden_files=true");
    expect(withHidden.directories.map((d) => d.name)).toEqual([".secret", "logs"]);
    const logs = await listing(alice.client, ds, "logs");
    expect(logs.directories.map((d) => d.name)).toEqual(["deep"]);
    expect(logs.files.map((f) => f.name)).toEqual(["a.log"]);
    expect((await alice.client.get(`/v1/files/association/id/${ds}/directory/logs`)).body.data).toEqual(logs);
  });

  test("list_directory pages with page_size and page_token", async () => {
    const first = await listing(alice.client, ds, "logs", "?page_size=1&show_hidden_files=true");
    expect([...first.directories, ...first.files]).toHaveLength(1);
    const second = await listing(alice.client, ds, "logs", `?page_size=5&show_hidden_files=true&page_token=${first.next_token}`);
    expect(second.next_token).toBeNull();
    expect([...second.directories.map((d) => d.name), ...second.files.map((f) => f.name)]).toEqual([".hidden", "a.log"]);
    expect(first.directories.map((d) => d.name)).toEqual(["deep"]);
  });

  test("count_directory_files counts files below, recursively; list_directory_paths lists them", async () => {
    expect((await alice.client.get(`/v1/datasets/${ds}/directory/logs/count`)).body).toEqual({ data: 2 });
    expect((await alice.client.get(`/v1/datasets/${ds}/directory/logs/count?show_hidden_files=true`)).body).toEqual({ data: 3 });
    expect((await alice.client.get(`/v1/datasets/${ds}/directory/${q("/")}/count`)).body).toEqual({ data: 3 });
    expect((await alice.client.get(`/v1/datasets/${ds}/directory/logs/paths`)).body).toEqual({ data: ["logs/.hidden", "logs/a.log", "logs/deep/b.log"] });
  });

  test("an unknown directory is 404; another org sees nothing", async () => {
    expect((await alice.client.get(`/v1/datasets/${ds}/directory/nope`)).status).toBe(404);
    expect((await bob.client.get(`/v1/datasets/${ds}/directory/logs`)).status).toBe(404);
    expect((await bob.client.get(`/v1/files/association/id/${ds}`)).status).toBe(404);
  });

  test("list_association_files lists every available file; list_association_directory_entries pages the directories", async () => {
    const files = (await alice.client.get(`/v1/files/association/id/${ds}`)).body.data.map((f: { relative_path: string }) => f.relative_path);
    expect(files).toEqual([".secret/c", "logs/.hidden", "logs/a.log", "logs/deep/b.log", "top.txt"]);
    const first = (await alice.client.get(`/v1/files/association/id/${ds}/directories?page_token=None&page_size=2`)).body.data;
    expect(first.items.map((d: { relative_path: string }) => d.relative_path)).toEqual([".secret", "logs"]);
    expect(first.total_count).toBe(3);
    const rest = (await alice.client.get(`/v1/files/association/id/${ds}/directories?page_token=${first.next_token}`)).body.data;
    expect(rest.items.map((d: { relative_path: string }) => d.relative_path)).toEqual(["logs/deep"]);
    expect(rest.next_token).toBeNull();
  });
});

describe("rename and delete directories", () => {
  test("rename_directory moves everything below it", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "old/a.txt": "a", "old/sub/b.txt": "b", "other.txt": "o" });
    const res = await alice.client.put(`/v1/datasets/${ds}/directory/rename`, { old_path: "old", new_path: "new" });
    expect(res.body.data).toMatchObject({ relative_path: "new", name: "new" });
    expect(await paths(alice.client, ds)).toEqual(["new/a.txt", "new/sub/b.txt", "other.txt"]);
    expect((await alice.client.get(`/v1/files/record/path/${q("new/sub/b.txt")}/association/${ds}`)).status).toBe(200);
    expect((await listing(alice.client, ds, "new/sub")).files.map((f) => f.name)).toEqual(["b.txt"]);
  });

  test("rename refuses a taken target (409), an unknown source (404) and a move below itself (400)", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "x/a.txt": "a", "y/b.txt": "b" });
    expect((await alice.client.put(`/v1/datasets/${ds}/directory/rename`, { old_path: "x", new_path: "y" })).status).toBe(409);
    expect((await alice.client.put(`/v1/datasets/${ds}/directory/rename`, { old_path: "nope", new_path: "z" })).status).toBe(404);
    expectBadRequest(await alice.client.put(`/v1/datasets/${ds}/directory/rename`, { old_path: "x", new_path: "x/inner" }), "new_path");
    expect(await paths(alice.client, ds)).toEqual(["x/a.txt", "y/b.txt"]);
  });

  test("delete_directories deletes them with everything below; an unknown path deletes nothing", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "keep/k.txt": "k", "gone/a.txt": "a", "gone/deep/b.txt": "b" });
    expectBadRequest(await alice.client.delete(`/v1/datasets/${ds}/directory`, { directory_paths: ["gone", "missing"] }), "directory_paths[1]");
    expect(await paths(alice.client, ds)).toEqual(["gone/a.txt", "gone/deep/b.txt", "keep/k.txt"]);
    expect((await alice.client.delete(`/v1/datasets/${ds}/directory`, { directory_paths: ["gone"] })).body).toEqual({ data: null });
    expect(await paths(alice.client, ds)).toEqual(["keep/k.txt"]);
    expect((await alice.client.get(`/v1/datasets/${ds}/directory/gone`)).status).toBe(404);
  });
});

describe("moves", () => {
  test("move_file moves a file to a new path, creating its directories", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "a.txt": "a", "b.txt": "b" });
    const file = (await alice.client.get(`/v1/files/record/path/a.txt/association/${ds}`)).body.data;
    const moved = await alice.client.put(`/v1/files/${file.file_id}/rename`, { association_id: ds, new_path: "dir/renamed.txt" });
    expect(moved.body.data).toMatchObject({ file_id: file.file_id, relative_path: "dir/renamed.txt", name: "renamed.txt", parent_id: expect.stringMatching(/^dr_/) });
    expect((await alice.client.put(`/v1/files/${file.file_id}/rename`, { association_id: ds, new_path: "b.txt" })).status).toBe(409);
    expectBadRequest(await alice.client.put(`/v1/files/${file.file_id}/rename`, { association_id: ds, new_path: "../x" }), "new_path");
    expect((await bob.client.put(`/v1/files/${file.file_id}/rename`, { association_id: ds, new_path: "x" })).status).toBe(404);
  });

  test("move_nodes moves files and directories all or nothing, answering the moved files", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "src/a.txt": "a", "src/inner/b.txt": "b", "loose.txt": "l" });
    const dst = (await alice.client.put(`/v1/datasets/${ds}/directory`, { name: "dst" })).body.data.directory_id;
    const src = (await listing(alice.client, ds, "/")).directories.find((d) => d.name === "src")!.directory_id;
    const loose = (await alice.client.get(`/v1/files/record/path/loose.txt/association/${ds}`)).body.data.file_id;
    const refused = await alice.client.put(`/v1/datasets/${ds}/files/move`, {
      operations: [
        { node_id: loose, fs_type: "file", new_parent_id: dst },
        { node_id: "fl_doesnotexist", fs_type: "file", new_parent_id: dst },
      ],
    });
    expectBadRequest(refused, "operations[1].node_id");
    expect(await paths(alice.client, ds)).toEqual(["loose.txt", "src/a.txt", "src/inner/b.txt"]);
    const res = await alice.client.put(`/v1/datasets/${ds}/files/move`, {
      operations: [
        { node_id: loose, fs_type: "file", new_parent_id: dst, new_name: "l.txt" },
        { node_id: src, fs_type: "directory", new_parent_id: dst },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((f: { relative_path: string }) => f.relative_path).sort()).toEqual(["dst/l.txt", "dst/src/a.txt", "dst/src/inner/b.txt"]);
    expect(await paths(alice.client, ds)).toEqual(["dst/l.txt", "dst/src/a.txt", "dst/src/inner/b.txt"]);
    expectBadRequest(await alice.client.put(`/v1/datasets/${ds}/files/move`, { operations: [{ node_id: dst, new_parent_id: src }] }), "operations[0].new_parent_id");
  });

  test("move_nodes applies its moves in order: a path an earlier move freed can be taken, and a moved directory carries later moves", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "a.txt": "a", "b.txt": "b", "src/c.txt": "c", "taken/x.txt": "x" });
    const dst = (await alice.client.put(`/v1/datasets/${ds}/directory`, { name: "dst" })).body.data.directory_id;
    const src = (await listing(alice.client, ds, "/")).directories.find((d) => d.name === "src")!.directory_id;
    const id = async (path: string) => (await alice.client.get(`/v1/files/record/path/${q(path)}/association/${ds}`)).body.data.file_id;
    const [a, b, c] = [await id("a.txt"), await id("b.txt"), await id("src/c.txt")];
    const res = await alice.client.put(`/v1/datasets/${ds}/files/move`, {
      operations: [
        { node_id: a, fs_type: "file", new_parent_id: dst },
        { node_id: b, fs_type: "file", new_name: "a.txt" },
        { node_id: src, fs_type: "directory", new_parent_id: dst },
        { node_id: c, fs_type: "file", new_name: "d.txt" },
      ],
    });
    expect(res.status).toBe(200);
    expect(await paths(alice.client, ds)).toEqual(["a.txt", "dst/a.txt", "dst/src/d.txt", "taken/x.txt"]);
    const clash = await alice.client.put(`/v1/datasets/${ds}/files/move`, {
      operations: [
        { node_id: b, fs_type: "file", new_name: "renamed.txt" },
        { node_id: c, fs_type: "file", new_parent_id: "/", new_name: "taken" },
      ],
    });
    expect(clash.status).toBe(409);
    expect(await paths(alice.client, ds)).toEqual(["a.txt", "dst/a.txt", "dst/src/d.txt", "taken/x.txt"]);
  });
});

describe("delete_dataset_files", () => {
  test("deletes matching files in batches, reporting has_more until done", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "a.csv": "1", "b.csv": "2", "c.txt": "3" });
    const res = await alice.client.post(`/v1/datasets/${ds}/files/delete`, { include_patterns: ["*.csv"] });
    expect(res.body.data).toEqual({ success_count: 2, failure_count: 0, has_more: false });
    expect(await paths(alice.client, ds)).toEqual(["c.txt"]);
    expect((await bob.client.post(`/v1/datasets/${ds}/files/delete`, {})).status).toBe(404);
    expect(await paths(alice.client, ds)).toEqual(["c.txt"]);
  });
});

describe("org associations", () => {
  test("files and directories can belong to the org itself, through the association routes", async () => {
    const org = alice.orgId;
    await uploadFiles(alice.client, org, { "org-docs/readme.txt": "org level" }, { associationType: "org" });
    const file = (await alice.client.get(`/v1/files/record/path/${q("org-docs/readme.txt")}/association/${org}`)).body.data;
    expect(file).toMatchObject({ association_id: org, org_id: alice.orgId, size: 9 });
    expect((await alice.client.put(`/v1/files/association/id/${org}/directory`, { name: "shared" })).body.data).toMatchObject({ association_id: org, relative_path: "shared" });
    const root = (await alice.client.get(`/v1/files/association/id/${org}/directory/${q("/")}`)).body.data;
    expect(root.directories.map((d: { name: string }) => d.name)).toEqual(["org-docs", "shared"]);
    expect((await alice.client.get(`/v1/files/association/id/${org}`)).body.data.map((f: { relative_path: string }) => f.relative_path)).toEqual(["org-docs/readme.txt"]);
  });

  test("another org's id as an association is 404, an unknown device too, and an unknown association type is a 400", async () => {
    const res = await alice.client.post("/v1/files/upload", { association: { association_id: bob.orgId, association_type: "org" }, origination: "t", resource_manifest: { "x.txt": 1 } });
    expect(res.status).toBe(404);
    expect((await alice.client.get(`/v1/files/association/id/${bob.orgId}`)).status).toBe(404);
    expectError(
      await alice.client.post("/v1/files/upload", { association: { association_id: "dv_1", association_type: "device" }, origination: "t", resource_manifest: { "x.txt": 1 } }),
      404,
      "device 'dv_1' not found",
    );
    expectBadRequest(
      await alice.client.post("/v1/files/upload", { association: { association_id: "fl_1", association_type: "file" }, origination: "t", resource_manifest: { "x.txt": 1 } }),
      "association.association_type",
    );
  });
});
