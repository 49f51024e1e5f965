import {
  createDataset,
  createDevice,
  createDeviceType,
  createTenant,
  expectBadRequest,
  expectError,
  keyOfUri,
  startWithTenants,
  uploadFiles,
  waitFor,
  type ApiClient,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// Files of devices and device types (their "configurations"): uploads, directories and listings
// through the association routes, a device's files inheriting its type's, what deleting a device
// or a device type does to its files, and isolation between orgs.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["device-files-alice", "device-files-bob"]);
});
afterAll(() => t?.close());

const q = encodeURIComponent;
let counter = 0;
const unique = (name: string) => `${name}-${++counter}`;
const paths = (files: { relative_path: string }[]) => files.map((f) => f.relative_path);

const newDevice = (client: ApiClient, deviceId: string, deviceTypeId?: string): Promise<{ device_id: string; universal_device_id: string }> =>
  createDevice(client, { device_id: deviceId, ...(deviceTypeId ? { device_type_id: deviceTypeId } : {}) });
const createType = async (client: ApiClient): Promise<string> => (await createDeviceType(client, { name: unique("type") })).device_type_id;

/** Waits for the background cleanup to delete the object an `s3://` URI names. */
const bytesGone = (uri: string) => waitFor(`the bytes of ${uri} to go`, async () => ((await t.objectStore.head(keyOfUri(uri))) === undefined ? true : undefined));

const byPath = (client: ApiClient, association: string, path: string, query = "") =>
  client.get(`/v1/files/record/path/${q(path)}/association/${q(association)}${query}`);

const queryFiles = (client: ApiClient, association: string, body: Record<string, unknown> = {}, query = "") =>
  client.post(`/v1/files/association/id/${q(association)}/files/query${query}`, body);

describe("a device's files", () => {
  test("uploads by device_id store files under the universal id; every association route finds them by either id", async () => {
    const device = await newDevice(alice.client, unique("fleet/robot"));
    await uploadFiles(alice.client, device.device_id, { "config/arm.yaml": "arm: 1", "calib.json": "{}" }, { associationType: "device" });
    const file = (await byPath(alice.client, device.device_id, "config/arm.yaml")).body.data;
    expect(file).toMatchObject({ association_id: device.universal_device_id, org_id: alice.orgId, relative_path: "config/arm.yaml", size: 6, status: "available" });
    expect((await byPath(alice.client, device.universal_device_id, "config/arm.yaml")).body.data).toEqual(file);
    expect((await alice.client.get(`/v1/files/record/${file.file_id}`)).body.data).toEqual(file);
    for (const id of [device.device_id, device.universal_device_id]) {
      expect(paths((await alice.client.get(`/v1/files/association/id/${q(id)}`)).body.data)).toEqual(["calib.json", "config/arm.yaml"]);
      expect(paths((await queryFiles(alice.client, id)).body.data.items)).toEqual(["calib.json", "config/arm.yaml"]);
    }
    const dirs = (await alice.client.get(`/v1/files/association/id/${q(device.device_id)}/directories?page_token=None`)).body.data;
    expect(dirs).toMatchObject({ items: [{ association_id: device.universal_device_id, relative_path: "config" }], total_count: 1, next_token: null });
  });

  test("directories are created, renamed and listed on a device through the association routes", async () => {
    const device = await newDevice(alice.client, unique("dirs"));
    const base = `/v1/files/association/id/${q(device.device_id)}`;
    const made = await alice.client.put(`${base}/directory`, { name: "maps", origination: "cli" });
    expect(made.status).toBe(200);
    expect(made.body.data).toMatchObject({ association_id: device.universal_device_id, relative_path: "maps", directory_id: expect.stringMatching(/^dr_/), origination: "cli" });
    await uploadFiles(alice.client, device.device_id, { "maps/floor.pgm": "P5" }, { associationType: "device" });
    const renamed = await alice.client.put(`${base}/directory/rename`, { old_path: "maps", new_path: "floorplans" });
    expect(renamed.body.data).toMatchObject({ directory_id: made.body.data.directory_id, relative_path: "floorplans" });
    const listing = (await alice.client.get(`${base}/directory/${q("floorplans")}`)).body.data;
    expect(listing.files.map((f: { name: string }) => f.name)).toEqual(["floor.pgm"]);
    expect((await byPath(alice.client, device.device_id, "floorplans/floor.pgm")).body.data.parent_id).toBe(made.body.data.directory_id);
  });

  test("association_type disambiguates a device_id that looks like another kind of id", async () => {
    const device = await newDevice(alice.client, "ds_lookalike");
    expectError(await alice.client.get("/v1/files/association/id/ds_lookalike"), 404, "dataset 'ds_lookalike' not found");
    await uploadFiles(alice.client, "ds_lookalike", { "a.txt": "a" }, { associationType: "device" });
    expect(paths((await alice.client.get("/v1/files/association/id/ds_lookalike?association_type=device")).body.data)).toEqual(["a.txt"]);
    expect((await byPath(alice.client, "ds_lookalike", "a.txt", "?association_type=device")).body.data.association_id).toBe(device.universal_device_id);
    expect(paths((await queryFiles(alice.client, "ds_lookalike", { association_type: "device" })).body.data.items)).toEqual(["a.txt"]);
    expect((await alice.client.put("/v1/files/association/id/ds_lookalike/directory", { name: "d", association_type: "device" })).status).toBe(200);
    expectBadRequest(await alice.client.get("/v1/files/association/id/x?association_type=topic"), "association_type");
  });

  test("an unknown device is a 404 on every route", async () => {
    const notFound = "device 'no/such' not found";
    expectError(await alice.client.get(`/v1/files/association/id/${q("no/such")}`), 404, notFound);
    expectError(await queryFiles(alice.client, "no/such"), 404, notFound);
    expectError(await alice.client.put(`/v1/files/association/id/${q("no/such")}/directory`, { name: "d" }), 404, notFound);
    expectError(await byPath(alice.client, "no/such", "a.txt"), 404, notFound);
    const upload = await alice.client.post("/v1/files/upload", { association: { association_id: "no/such", association_type: "device" }, origination: "t", resource_manifest: { "a.txt": 1 } });
    expectError(upload, 404, notFound);
  });
});

describe("a device type's files and include_inherited", () => {
  test("a device type holds files by its id; a device's query with include_inherited adds them, its own file winning at the same path", async () => {
    const type = await createType(alice.client);
    await uploadFiles(alice.client, type, { "config/base.yaml": "base", "config/shared.yaml": "type" }, { associationType: "device_type" });
    expect(paths((await alice.client.get(`/v1/files/association/id/${type}`)).body.data)).toEqual(["config/base.yaml", "config/shared.yaml"]);
    const device = await newDevice(alice.client, unique("inherits"), type);
    await uploadFiles(alice.client, device.device_id, { "config/shared.yaml": "own!", "local.txt": "l" }, { associationType: "device" });

    const own = (await queryFiles(alice.client, device.device_id)).body.data;
    expect(paths(own.items)).toEqual(["config/shared.yaml", "local.txt"]);
    const merged = (await queryFiles(alice.client, device.device_id, { include_inherited: true })).body.data;
    expect(merged.total_count).toBe(3);
    expect(merged.items.map((f: { relative_path: string; association_id: string }) => [f.relative_path, f.association_id])).toEqual([
      ["config/base.yaml", type],
      ["config/shared.yaml", device.universal_device_id],
      ["local.txt", device.universal_device_id],
    ]);
    const first = (await queryFiles(alice.client, device.device_id, { include_inherited: true, limit: 2 })).body.data;
    expect(paths(first.items)).toEqual(["config/base.yaml", "config/shared.yaml"]);
    const rest = await queryFiles(alice.client, device.device_id, { include_inherited: true, limit: 2, page_token: first.next_token }, `?page_token=${first.next_token}`);
    expect(paths(rest.body.data.items)).toEqual(["local.txt"]);
    expectBadRequest(await queryFiles(alice.client, device.device_id, { limit: 2, page_token: first.next_token }), "page_token");
    const patterned = (await queryFiles(alice.client, device.device_id, { include_inherited: true, include_patterns: ["config/*"], exclude_patterns: ["*shared*"] })).body.data;
    expect(paths(patterned.items)).toEqual(["config/base.yaml"]);
  });

  test("a device without a type inherits nothing; include_inherited on anything but a device is a 400", async () => {
    const device = await newDevice(alice.client, unique("untyped"));
    await uploadFiles(alice.client, device.device_id, { "only.txt": "o" }, { associationType: "device" });
    expect(paths((await queryFiles(alice.client, device.device_id, { include_inherited: true })).body.data.items)).toEqual(["only.txt"]);
    const type = await createType(alice.client);
    const ds = await createDataset(alice.client);
    for (const res of [
      await queryFiles(alice.client, type, { include_inherited: true }),
      await queryFiles(alice.client, alice.orgId, { include_inherited: true }),
      await queryFiles(alice.client, ds, { include_inherited: true }),
      await alice.client.post(`/v1/datasets/${ds}/files/query`, { include_inherited: true }),
    ]) {
      expectError(res, 400, "include_inherited: only a device's files can include inherited ones");
    }
  });
});

describe("deleting a device or device type", () => {
  test("delete_device deletes the device's files and their bytes, except bytes a link elsewhere still needs", async () => {
    const device = await newDevice(alice.client, unique("doomed"));
    const { mappings } = await uploadFiles(alice.client, device.device_id, { "a/one.txt": "one", "two.txt": "two" }, { associationType: "device" });
    const one = (await byPath(alice.client, device.device_id, "a/one.txt")).body.data;
    const ds = await createDataset(alice.client);
    const link = await alice.client.post(`/v1/files/association/id/${ds}/link`, { target_file_id: one.file_id, relative_path: "kept.txt" });
    expect(link.status).toBe(200);
    const open = await uploadFiles(alice.client, device.device_id, { "pending.txt": "p" }, { associationType: "device", complete: false });

    expect(await alice.client.delete(`/v1/devices/id/${q(device.device_id)}`)).toMatchObject({ status: 200, body: { data: null } });
    expectError(await alice.client.get(`/v1/files/record/${one.file_id}`), 404, `file '${one.file_id}' not found`);
    expectError(await alice.client.get(`/v1/files/association/id/${device.universal_device_id}`), 404, `device '${device.universal_device_id}' not found`);
    // The bytes and the aborted upload go in the background (see lifecycle.e2e.ts).
    await bytesGone(mappings["two.txt"]!);
    await bytesGone(open.mappings["pending.txt"]!);
    expect(await t.objectStore.head(keyOfUri(mappings["a/one.txt"]!))).toMatchObject({ size: 3 });
    await waitFor("the aborted upload to go", async () => ((await alice.client.put(`/v1/files/upload/${open.transactionId}/complete`)).status === 404 ? true : undefined));
    expect((await byPath(alice.client, ds, "kept.txt")).body.data).toMatchObject({ size: 3, uri: one.uri });
  });

  test("keep_configurations=true moves the files to the org's root, merging directories both have", async () => {
    const org = await createTenant(t, "device-files-keep");
    await uploadFiles(org.client, org.orgId, { "config/org.yaml": "org" }, { associationType: "org" });
    const device = await newDevice(org.client, "keeper/1");
    await uploadFiles(org.client, device.device_id, { "config/device.yaml": "dev", "logs/boot.txt": "boot" }, { associationType: "device" });
    const moved = (await byPath(org.client, device.device_id, "config/device.yaml")).body.data;

    const res = await org.client.delete(`/v1/devices/id/${q(device.device_id)}?keep_configurations=true`);
    expect(res).toMatchObject({ status: 200, body: { data: null } });
    expectError(await org.client.get(`/v1/devices/id/${q(device.device_id)}`), 404, "device 'keeper/1' not found");
    const file = (await org.client.get(`/v1/files/record/${moved.file_id}`)).body.data;
    expect(file).toMatchObject({ file_id: moved.file_id, association_id: org.orgId, relative_path: "config/device.yaml", uri: moved.uri, modified_by: org.userId });
    expect(paths((await org.client.get(`/v1/files/association/id/${org.orgId}`)).body.data)).toEqual(["config/device.yaml", "config/org.yaml", "logs/boot.txt"]);
    const root = (await org.client.get(`/v1/files/association/id/${org.orgId}/directory/${q("/")}`)).body.data;
    expect(root.directories.map((d: { name: string }) => d.name)).toEqual(["config", "logs"]);
    const config = (await org.client.get(`/v1/files/association/id/${org.orgId}/directory/config`)).body.data;
    expect(config.files.map((f: { name: string }) => f.name)).toEqual(["device.yaml", "org.yaml"]);
    expect(file.parent_id).toBe(root.directories[0].directory_id);
    expect(await t.objectStore.head(keyOfUri(moved.uri))).toMatchObject({ size: 3 });
  });

  test("keep_configurations=true with a path the org's root already has is a 409 and changes nothing", async () => {
    const org = await createTenant(t, "device-files-clash");
    await uploadFiles(org.client, org.orgId, { "calib.json": "org" }, { associationType: "org" });
    const device = await newDevice(org.client, "clasher");
    await uploadFiles(org.client, device.device_id, { "calib.json": "device", "other.txt": "o" }, { associationType: "device" });
    const res = await org.client.delete("/v1/devices/id/clasher?keep_configurations=true");
    expectError(res, 409, `keep_configurations: 'calib.json' already exists at the root of org '${org.orgId}'`);
    expect((await org.client.get("/v1/devices/id/clasher")).status).toBe(200);
    expect(paths((await org.client.get("/v1/files/association/id/clasher")).body.data)).toEqual(["calib.json", "other.txt"]);
    expect(paths((await org.client.get(`/v1/files/association/id/${org.orgId}`)).body.data)).toEqual(["calib.json"]);
    // keep_configurations=false (the default) deletes them instead.
    expect((await org.client.delete("/v1/devices/id/clasher?keep_configurations=false")).status).toBe(200);
    expect(paths((await org.client.get(`/v1/files/association/id/${org.orgId}`)).body.data)).toEqual(["calib.json"]);
  });

  test("delete_device_type deletes the type's files with it", async () => {
    const type = await createType(alice.client);
    const { mappings } = await uploadFiles(alice.client, type, { "defaults.yaml": "d: 1" }, { associationType: "device_type" });
    const file = (await byPath(alice.client, type, "defaults.yaml")).body.data;
    expect((await alice.client.delete(`/v1/device-types/id/${type}`)).status).toBe(200);
    expectError(await alice.client.get(`/v1/files/record/${file.file_id}`), 404, `file '${file.file_id}' not found`);
    await bytesGone(mappings["defaults.yaml"]!);
  });
});

describe("isolation", () => {
  test("orgs with the same device_id keep separate files; another org's device and type are 404s", async () => {
    const deviceId = "shared/name";
    const mine = await newDevice(alice.client, deviceId);
    const theirs = await newDevice(bob.client, deviceId);
    await uploadFiles(alice.client, deviceId, { "cfg.txt": "alice" }, { associationType: "device" });
    await uploadFiles(bob.client, deviceId, { "cfg.txt": "bob!!", "bob-only.txt": "b" }, { associationType: "device" });
    expect((await byPath(alice.client, deviceId, "cfg.txt")).body.data).toMatchObject({ association_id: mine.universal_device_id, size: 5 });
    expect(paths((await alice.client.get(`/v1/files/association/id/${q(deviceId)}`)).body.data)).toEqual(["cfg.txt"]);
    expect(paths((await bob.client.get(`/v1/files/association/id/${q(deviceId)}`)).body.data)).toEqual(["bob-only.txt", "cfg.txt"]);

    const notTheirs = `device '${theirs.universal_device_id}' not found`;
    expectError(await alice.client.get(`/v1/files/association/id/${theirs.universal_device_id}`), 404, notTheirs);
    expectError(await queryFiles(alice.client, theirs.universal_device_id), 404, notTheirs);
    expectError(await byPath(alice.client, theirs.universal_device_id, "bob-only.txt"), 404, notTheirs);
    const upload = await alice.client.post("/v1/files/upload", { association: { association_id: theirs.universal_device_id, association_type: "device" }, origination: "t", resource_manifest: { "x.txt": 1 } });
    expectError(upload, 404, notTheirs);
    const type = await createType(bob.client);
    expectError(await alice.client.get(`/v1/files/association/id/${type}`), 404, `device type '${type}' not found`);
    expectError(await alice.client.put(`/v1/files/association/id/${type}/directory`, { name: "d" }), 404, `device type '${type}' not found`);
  });
});
