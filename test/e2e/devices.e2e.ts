import {
  createDevice,
  createDeviceType,
  createTenant,
  expectBadRequest,
  expectError,
  startWithTenants,
  type ApiClient,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// Devices and device types through the gateway: records, the rules (a device_id unique in its org,
// a type in use cannot be deleted, unknown types are 404s), updates, listings newest first with
// paging, and isolation between orgs. Their files are in device-files.e2e.ts.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["devices-alice", "devices-bob"]);
});
afterAll(() => t?.close());

const q = encodeURIComponent;
let counter = 0;
const unique = (name: string) => `${name}-${++counter}`;

const createType = (client: ApiClient, body: Record<string, unknown> = {}) => createDeviceType(client, { name: unique("type"), ...body });

const ids = (page: { items: { device_id: string }[] }) => page.items.map((d) => d.device_id);

describe("create_device and get_device", () => {
  test("creates a device with the documented fields and reads it back", async () => {
    const res = await alice.client.post("/v1/devices/create", { device_id: "robot-1", metadata: { model: "mk2", serial: { n: 7 } }, tags: ["field", "field", "arm"] });
    expect(res.status).toBe(200);
    const device = res.body.data;
    expect(device).toEqual({
      device_id: "robot-1",
      universal_device_id: expect.stringMatching(/^dv_[0-9a-z]{20}$/),
      org_id: alice.orgId,
      device_type_id: null,
      metadata: { model: "mk2", serial: { n: 7 } },
      custom_fields: {},
      tags: ["field", "arm"],
      created: expect.any(String),
      created_by: alice.userId,
      modified: device.created,
      modified_by: alice.userId,
    });
    expect(await alice.client.get("/v1/devices/id/robot-1")).toMatchObject({ status: 200, body: { data: device } });
  });

  test("a device id may hold '/', spaces and '+', URL-quoted in one path segment", async () => {
    const deviceId = "fleet/robot 7+x";
    const device = await createDevice(alice.client, { device_id: deviceId, custom_fields: { owner: "ops" } });
    expect(device).toMatchObject({ device_id: deviceId, custom_fields: { owner: "ops" } });
    expect((await alice.client.get(`/v1/devices/id/${q(deviceId)}`)).body.data).toEqual(device);
    const updated = await alice.client.put(`/v1/devices/id/${q(deviceId)}`, { metadata_changeset: { put_tags: ["quoted"] } });
    expect(updated.body.data).toMatchObject({ device_id: deviceId, tags: ["quoted"] });
    expect(await alice.client.delete(`/v1/devices/id/${q(deviceId)}`)).toMatchObject({ status: 200, body: { data: null } });
    expectError(await alice.client.get(`/v1/devices/id/${q(deviceId)}`), 404, `device '${deviceId}' not found`);
  });

  test("a device_id already used in the org is a 409; another org may use it", async () => {
    await createDevice(alice.client, { device_id: "twin" });
    expectError(await alice.client.post("/v1/devices/create", { device_id: "twin" }), 409, `device_id: a device 'twin' already exists in org '${alice.orgId}'`);
    expect((await bob.client.post("/v1/devices/create", { device_id: "twin" })).body.data).toMatchObject({ device_id: "twin", org_id: bob.orgId });
  });

  test("a device type is set by id; an unknown one, or another org's, is a 404 and creates nothing", async () => {
    const type = await createType(alice.client);
    expect((await createDevice(alice.client, { device_id: "typed", device_type_id: type.device_type_id })).device_type_id).toBe(type.device_type_id);
    expectError(await alice.client.post("/v1/devices/create", { device_id: "untyped", device_type_id: "dt_nope" }), 404, "device type 'dt_nope' not found");
    const bobsType = await createType(bob.client);
    expectError(await alice.client.post("/v1/devices/create", { device_id: "untyped", device_type_id: bobsType.device_type_id }), 404, `device type '${bobsType.device_type_id}' not found`);
    expect((await alice.client.get("/v1/devices/id/untyped")).status).toBe(404);
  });

  test("bad input is a 400 naming the field", async () => {
    expectBadRequest(await alice.client.post("/v1/devices/create", {}), "device_id");
    expectBadRequest(await alice.client.post("/v1/devices/create", { device_id: "" }), "device_id");
    expectBadRequest(await alice.client.post("/v1/devices/create", { device_id: "x".repeat(257) }), "device_id");
    expectBadRequest(await alice.client.post("/v1/devices/create", { device_id: "tab\there" }), "device_id");
    expectBadRequest(await alice.client.post("/v1/devices/create", { device_id: "d", tags: ["ok", ""] }), "tags[1]");
    expectBadRequest(await alice.client.post("/v1/devices/create", { device_id: "d", metadata: [1] }), "metadata");
    expectBadRequest(await alice.client.post("/v1/devices/create", { device_id: "d", device_type_id: "" }), "device_type_id");
    expect((await alice.client.get("/v1/devices/id/d")).status).toBe(404);
  });

  test("org_id names an org of the caller; another org is a 404", async () => {
    expect((await createDevice(alice.client, { device_id: "with-org", org_id: alice.orgId })).org_id).toBe(alice.orgId);
    expectError(await alice.client.post("/v1/devices/create", { device_id: "elsewhere", org_id: bob.orgId }), 404, `org '${bob.orgId}' not found`);
  });
});

describe("update_device", () => {
  test("applies metadata, tag and custom-field changesets and records who changed it", async () => {
    const before = await createDevice(alice.client, { device_id: unique("edit"), metadata: { a: 1, drop: { x: 1 } }, tags: ["old"], custom_fields: { owner: "ops", review: "open" } });
    const res = await alice.client.put(`/v1/devices/id/${before.device_id}`, {
      metadata_changeset: { put_fields: { "b.c": 2 }, remove_fields: ["drop.x"], put_tags: ["new"], remove_tags: ["old"] },
      custom_fields_changeset: { set_fields: { owner: "qa" }, clear_fields: ["review"] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      ...before,
      metadata: { a: 1, b: { c: 2 } },
      tags: ["new"],
      custom_fields: { owner: "qa", review: null },
      modified: expect.any(String),
    });
    expect(Date.parse(res.body.data.modified)).toBeGreaterThanOrEqual(Date.parse(before.modified));
    expect((await alice.client.get(`/v1/devices/id/${before.device_id}`)).body.data).toEqual(res.body.data);
  });

  test("device_type_id sets the type, null clears it, omitted keeps it; unknown types are 404s", async () => {
    const type = await createType(alice.client);
    const device = await createDevice(alice.client, { device_id: unique("retype") });
    const path = `/v1/devices/id/${device.device_id}`;
    expect((await alice.client.put(path, { device_type_id: type.device_type_id })).body.data.device_type_id).toBe(type.device_type_id);
    expect((await alice.client.put(path, { metadata_changeset: { put_tags: ["kept"] } })).body.data.device_type_id).toBe(type.device_type_id);
    expectError(await alice.client.put(path, { device_type_id: "dt_nope" }), 404, "device type 'dt_nope' not found");
    expect((await alice.client.put(path, { device_type_id: null })).body.data.device_type_id).toBeNull();
    expectBadRequest(await alice.client.put(path, { device_type_id: 5 }), "device_type_id");
    expectBadRequest(await alice.client.put(path, { device_type_id: "" }), "device_type_id");
  });

  test("bad changesets are 400s naming the field and change nothing", async () => {
    const device = await createDevice(alice.client, { device_id: unique("bad-edit"), tags: ["t"] });
    const path = `/v1/devices/id/${device.device_id}`;
    expectBadRequest(await alice.client.put(path, { metadata_changeset: { put_fields: { "a..b": 1 } } }), "metadata_changeset.put_fields");
    expectBadRequest(await alice.client.put(path, { metadata_changeset: { put_tags: ["ok", ""] } }), "metadata_changeset.put_tags[1]");
    expectBadRequest(await alice.client.put(path, { custom_fields_changeset: { remove_fields: [""] } }), "custom_fields_changeset.remove_fields");
    expect((await alice.client.get(path)).body.data).toEqual(device);
  });

  test("an unknown device is a 404", async () => {
    expectError(await alice.client.put("/v1/devices/id/ghost", { metadata_changeset: { put_tags: ["x"] } }), 404, "device 'ghost' not found");
    expectError(await alice.client.delete("/v1/devices/id/ghost"), 404, "device 'ghost' not found");
  });
});

describe("list_org_devices", () => {
  test("lists the org's devices newest first, paged by next_token, with the total count", async () => {
    const org = await createTenant(t, "devices-list");
    for (const id of ["d1", "d2", "d3"]) await createDevice(org.client, { device_id: id });
    const all = (await org.client.get(`/v1/devices/org/${org.orgId}`)).body.data;
    expect(all).toMatchObject({ next_token: null, total_count: 3 });
    expect(ids(all)).toEqual(["d3", "d2", "d1"]);
    expect(all.items[0]).toEqual((await org.client.get("/v1/devices/id/d3")).body.data);
    const first = (await org.client.get(`/v1/devices/org/${org.orgId}?page_size=2`)).body.data;
    expect(ids(first)).toEqual(["d3", "d2"]);
    expect(first.next_token).toEqual(expect.any(String));
    // A device created meanwhile does not shift the next page.
    await createDevice(org.client, { device_id: "d4" });
    const second = (await org.client.get(`/v1/devices/org/${org.orgId}?page_size=2&page_token=${first.next_token}`)).body.data;
    expect(second).toMatchObject({ next_token: null, total_count: 4 });
    expect(ids(second)).toEqual(["d1"]);
    expect(ids((await org.client.get(`/v1/devices/org/${org.orgId}?page_token=None`)).body.data)).toEqual(["d4", "d3", "d2", "d1"]);
  });

  test("bad paging is a 400 naming the parameter", async () => {
    const org = await createTenant(t, "devices-paging");
    for (const id of ["p1", "p2"]) await createDevice(org.client, { device_id: id });
    const token = (await org.client.get(`/v1/devices/org/${org.orgId}?page_size=1`)).body.data.next_token;
    expectBadRequest(await org.client.get(`/v1/devices/org/${org.orgId}?page_token=garbage!`), "page_token");
    expectBadRequest(await org.client.get(`/v1/device-types/org/${org.orgId}?page_token=${token}`), "page_token");
    expectBadRequest(await org.client.get(`/v1/devices/org/${org.orgId}?page_size=0`), "page_size");
  });

  test("a member of several orgs lists and creates in the org it names", async () => {
    const multi = await createTenant(t, "devices-multi");
    const second = (await multi.client.post("/v1/orgs", { name: "devices-multi-second" })).body.data.org_id as string;
    const device = await createDevice(multi.client, { device_id: "in-second", org_id: second });
    expect(device.org_id).toBe(second);
    expect(ids((await multi.client.get(`/v1/devices/org/${second}`)).body.data)).toEqual(["in-second"]);
    expect(ids((await multi.client.get(`/v1/devices/org/${multi.orgId}`)).body.data)).toEqual([]);
    expect((await multi.client.get("/v1/devices/id/in-second", { "X-Service-Org-Id": second })).body.data).toEqual(device);
    expect((await multi.client.get("/v1/devices/id/in-second", { "X-Service-Org-Id": multi.orgId })).status).toBe(404);
  });
});

describe("device types", () => {
  test("concurrent updates of a type each keep their changes: ten metadata keys put at once all stay", async () => {
    const type = await createType(alice.client);
    const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
    const answers = await Promise.all(
      keys.map((key) => alice.client.put(`/v1/device-types/id/${type.device_type_id}`, { metadata_changeset: { put_fields: { [key]: key } } })),
    );
    expect(answers.map((a) => a.status)).toEqual(keys.map(() => 200));
    const after = (await alice.client.get(`/v1/device-types/id/${type.device_type_id}`)).body.data;
    expect(after.metadata).toEqual(Object.fromEntries(keys.map((key) => [key, key])));
  });

  test("creates a device type with the documented fields; device_count follows its devices", async () => {
    const res = await alice.client.post("/v1/device-types/create", { name: "quadruped", description: "four legs", metadata: { vendor: "acme" }, tags: ["legged"] });
    expect(res.status).toBe(200);
    const type = res.body.data;
    expect(type).toEqual({
      device_type_id: expect.stringMatching(/^dt_[0-9a-z]{20}$/),
      org_id: alice.orgId,
      name: "quadruped",
      description: "four legs",
      device_count: 0,
      metadata: { vendor: "acme" },
      tags: ["legged"],
      created: expect.any(String),
      created_by: alice.userId,
      modified: type.created,
      modified_by: alice.userId,
    });
    await createDevice(alice.client, { device_id: unique("leg"), device_type_id: type.device_type_id });
    const second = await createDevice(alice.client, { device_id: unique("leg"), device_type_id: type.device_type_id });
    expect((await alice.client.get(`/v1/device-types/id/${type.device_type_id}`)).body.data).toEqual({ ...type, device_count: 2 });
    await alice.client.put(`/v1/devices/id/${second.device_id}`, { device_type_id: null });
    expect((await alice.client.get(`/v1/device-types/id/${type.device_type_id}`)).body.data.device_count).toBe(1);
  });

  test("a description left out is null; bad names are 400s naming the field", async () => {
    expect((await createType(alice.client)).description).toBeNull();
    expectBadRequest(await alice.client.post("/v1/device-types/create", {}), "name");
    expectBadRequest(await alice.client.post("/v1/device-types/create", { name: "   " }), "name");
    expectBadRequest(await alice.client.post("/v1/device-types/create", { name: "n".repeat(121) }), "name");
    expectBadRequest(await alice.client.post("/v1/device-types/create", { name: "ok", tags: [""] }), "tags[0]");
  });

  test("update_device_type edits name, description (null clears) and metadata", async () => {
    const type = await createType(alice.client, { description: "before", metadata: { a: 1 }, tags: ["x"] });
    const path = `/v1/device-types/id/${type.device_type_id}`;
    const res = await alice.client.put(path, { name: "renamed", description: null, metadata_changeset: { put_fields: { b: 2 }, put_tags: ["y"], remove_tags: ["x"] } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...type, name: "renamed", description: null, metadata: { a: 1, b: 2 }, tags: ["y"], modified: expect.any(String) });
    expect((await alice.client.put(path, { description: "again" })).body.data).toMatchObject({ name: "renamed", description: "again" });
    expectBadRequest(await alice.client.put(path, { name: "" }), "name");
    expectBadRequest(await alice.client.put(path, { description: 3 }), "description");
  });

  test("deleting a device type is a 409 while a device is of it, then succeeds once none is", async () => {
    const type = await createType(alice.client);
    const path = `/v1/device-types/id/${type.device_type_id}`;
    const device = await createDevice(alice.client, { device_id: unique("user"), device_type_id: type.device_type_id });
    expectError(await alice.client.delete(path), 409, `device type '${type.device_type_id}' is the type of 1 device(s); change or delete them first`);
    expect((await alice.client.get(path)).body.data.device_count).toBe(1);
    await alice.client.delete(`/v1/devices/id/${device.device_id}`);
    expect(await alice.client.delete(path)).toMatchObject({ status: 200, body: { data: null } });
    expectError(await alice.client.get(path), 404, `device type '${type.device_type_id}' not found`);
    expectError(await alice.client.delete(path), 404, `device type '${type.device_type_id}' not found`);
  });

  test("list_devices_of_type and list_device_types are newest first and paged", async () => {
    const org = await createTenant(t, "device-types-list");
    const [first, second] = [await createType(org.client, { name: "first" }), await createType(org.client, { name: "second" })];
    for (const id of ["a", "b", "c"]) await createDevice(org.client, { device_id: id, device_type_id: first.device_type_id });
    await createDevice(org.client, { device_id: "other", device_type_id: second.device_type_id });
    await createDevice(org.client, { device_id: "none" });
    const ofType = (await org.client.get(`/v1/device-types/id/${first.device_type_id}/devices?page_size=2`)).body.data;
    expect(ids(ofType)).toEqual(["c", "b"]);
    expect(ofType.total_count).toBe(3);
    const rest = (await org.client.get(`/v1/device-types/id/${first.device_type_id}/devices?page_size=2&page_token=${ofType.next_token}`)).body.data;
    expect(rest).toMatchObject({ next_token: null, total_count: 3 });
    expect(ids(rest)).toEqual(["a"]);
    const types = (await org.client.get(`/v1/device-types/org/${org.orgId}`)).body.data;
    expect(types).toEqual({ items: [{ ...second, device_count: 1 }, { ...first, device_count: 3 }], next_token: null, total_count: 2 });
    const paged = (await org.client.get(`/v1/device-types/org/${org.orgId}?page_size=1`)).body.data;
    expect(paged.items.map((x: { name: string }) => x.name)).toEqual(["second"]);
    const last = (await org.client.get(`/v1/device-types/org/${org.orgId}?page_size=1&page_token=${paged.next_token}`)).body.data;
    expect(last.items.map((x: { name: string }) => x.name)).toEqual(["first"]);
    expect(last.next_token).toBeNull();
  });
});

describe("isolation", () => {
  test("another org's devices and device types are 404s, and its listings are 404s too", async () => {
    const type = await createType(alice.client);
    const device = await createDevice(alice.client, { device_id: unique("private"), device_type_id: type.device_type_id });
    const devicePath = `/v1/devices/id/${device.device_id}`;
    const typePath = `/v1/device-types/id/${type.device_type_id}`;
    const notDevice = `device '${device.device_id}' not found`;
    const notType = `device type '${type.device_type_id}' not found`;
    for (const headers of [{}, { "X-Service-Resource-Owner-Id": alice.orgId }] as Record<string, string>[]) {
      expectError(await bob.client.get(devicePath, headers), 404, notDevice);
      expectError(await bob.client.put(devicePath, { metadata_changeset: { put_tags: ["x"] } }, headers), 404, notDevice);
      expectError(await bob.client.delete(devicePath, undefined, headers), 404, notDevice);
      expectError(await bob.client.get(typePath, headers), 404, notType);
      expectError(await bob.client.put(typePath, { name: "stolen" }, headers), 404, notType);
      expectError(await bob.client.delete(typePath, undefined, headers), 404, notType);
      expectError(await bob.client.get(`${typePath}/devices`, headers), 404, notType);
    }
    expectError(await bob.client.get(`/v1/devices/org/${alice.orgId}`), 404, `org '${alice.orgId}' not found`);
    expectError(await bob.client.get(`/v1/device-types/org/${alice.orgId}`), 404, `org '${alice.orgId}' not found`);
    expect(ids((await bob.client.get(`/v1/devices/org/${bob.orgId}`)).body.data)).not.toContain(device.device_id);
    expect((await alice.client.get(devicePath)).body.data).toEqual(device);
    expect((await alice.client.get(typePath)).body.data).toMatchObject({ name: type.name, device_count: 1 });
  });
});
