import {
  createDataset,
  createDevice,
  expectBadRequest,
  startWithTenants,
  uploadFiles,
  type ApiClient,
  type ExtraHeaders,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// X-Roboto-Api-Version (sdk-0.62-routes.md, "Global changes"): every dated change applies from its
// date on, an older version keeps the older shape, no header means the newest, and an unknown or
// malformed version is a 400 naming the header. The matrix: each dated change of an implemented
// area under the version just before it and under its own date.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["versions-alice", "versions-bob"]);
});
afterAll(() => t?.close());

const at = (version: string): ExtraHeaders => ({ "X-Roboto-Api-Version": version });
const q = encodeURIComponent;
let counter = 0;
const unique = (name: string) => `${name}-${++counter}`;

describe("the version header", () => {
  test.each([
    ["an unknown date", "2026-07-04", /^X-Roboto-Api-Version: unknown API version '2026-07-04'; known versions are 2025-01-01 to 2026-10-06/],
    ["a future date", "2027-01-01", /^X-Roboto-Api-Version: unknown API version '2027-01-01'/],
    ["not a date", "latest", /^X-Roboto-Api-Version: must be an API version date \(YYYY-MM-DD\), such as 2026-10-06, not 'latest'$/],
  ])("%s is a 400 naming the header, and nothing is written", async (_, version, message) => {
    const before = (await alice.client.post("/v1/datasets/query", {})).body.data.items.length;
    const res = await alice.client.post("/v1/datasets", { name: "never" }, at(version));
    expectBadRequest(res, "X-Roboto-Api-Version");
    expect(res.body.error.message).toMatch(message);
    expect((await alice.client.post("/v1/datasets/query", {})).body.data.items).toHaveLength(before);
  });

  test("a huge value is not echoed", async () => {
    const res = await alice.client.get("/v1/users/whoami", at("x".repeat(5000)));
    expectBadRequest(res, "X-Roboto-Api-Version");
    expect(res.body.error.message.length).toBeLessThan(200);
  });

  test("the X-Service-Api-Version alias is read as the header", async () => {
    expectBadRequest(await alice.client.get("/v1/users/whoami", { "X-Service-Api-Version": "nope" }), "X-Roboto-Api-Version");
    expect((await alice.client.get("/v1/users/whoami", { "X-Service-Api-Version": "2025-01-01" })).status).toBe(200);
  });

  test("every known version is accepted", async () => {
    const known = ["2025-01-01", "2025-07-14", "2026-01-02", "2026-02-02", "2026-02-11", "2026-03-13", "2026-05-20"];
    known.push("2026-07-05", "2026-08-10", "2026-08-27", "2026-09-30", "2026-10-02", "2026-10-05", "2026-10-06");
    for (const version of known) expect({ version, status: (await alice.client.get("/v1/users/whoami", at(version))).status }).toEqual({ version, status: 200 });
  });
});

describe("2026-07-05: upload progress answers {uri, file_id} pairs", () => {
  const progress = async (headers: ExtraHeaders) => {
    const ds = await createDataset(alice.client);
    const { transactionId, mappings } = await uploadFiles(alice.client, ds, { "a.txt": "a", "b.txt": "b" }, { complete: false });
    const res = await alice.client.put(`/v1/files/upload/${transactionId}/progress`, { manifest_items: [mappings["b.txt"], mappings["a.txt"]] }, headers);
    expect(res.status).toBe(200);
    const ids = await Promise.all(["a.txt", "b.txt"].map(async (path) => (await alice.client.get(`/v1/files/record/path/${path}/association/${ds}`)).body.data.file_id));
    return { data: res.body.data, mappings, ids: { a: ids[0], b: ids[1] } };
  };

  test.each([["2026-07-05"], ["2026-10-06"], ["no header"]])("at %s: pairs, one per marked URI", async (version) => {
    const { data, mappings, ids } = await progress(version === "no header" ? {} : at(version));
    expect([...data].sort((x: { uri: string }, y: { uri: string }) => x.uri.localeCompare(y.uri))).toEqual([
      { uri: mappings["a.txt"], file_id: ids.a },
      { uri: mappings["b.txt"], file_id: ids.b },
    ]);
  });

  test.each([["2026-05-20"], ["2025-01-01"]])("at %s (before): the bare list of file ids", async (version) => {
    const { data, ids } = await progress(at(version));
    expect([...data].sort()).toEqual([ids.a, ids.b].sort());
  });
});

describe("2026-10-02: file records may be links", () => {
  /** A device of alice's with a link `cfg/link.txt` to a file of one of her datasets, and that target. */
  const deviceWithLink = async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "target.txt": "bytes" });
    const target = (await alice.client.get(`/v1/files/record/path/target.txt/association/${ds}`)).body.data;
    const device = await createDevice(alice.client, { device_id: unique("robot") });
    await uploadFiles(alice.client, device.universal_device_id, { "cfg/own.txt": "own" }, { associationType: "device" });
    const res = await alice.client.put(`/v1/files/association/id/${device.universal_device_id}/link`, { relative_path: "cfg/link.txt", target_file_id: target.file_id });
    expect(res.status).toBe(200);
    return { device, target, link: res.body.data };
  };
  const listings = (client: ApiClient, association: string, headers: ExtraHeaders) =>
    Promise.all([
      client.get(`/v1/files/association/id/${association}`, headers).then((r) => r.body.data),
      client.post(`/v1/files/association/id/${association}/query`, {}, headers).then((r) => r.body.data.items),
      client.get(`/v1/files/association/id/${association}/directory/cfg`, headers).then((r) => r.body.data.files),
    ]);
  const paths = (files: { relative_path: string }[]) => files.map((file) => file.relative_path).sort();

  test.each([["2026-10-02"], ["2026-10-06"], ["no header"]])("at %s: links are listed and read like files, as fs_type 'link'", async (version) => {
    const headers = version === "no header" ? {} : at(version);
    const { device, target, link } = await deviceWithLink();
    expect(link).toMatchObject({ fs_type: "link", uri: `roboto://file/${target.file_id}?v=1`, size: 0, association_id: device.universal_device_id, relative_path: "cfg/link.txt" });
    for (const listed of await listings(alice.client, device.universal_device_id, headers)) expect(paths(listed)).toEqual(["cfg/link.txt", "cfg/own.txt"]);
    expect((await alice.client.get(`/v1/files/record/${link.file_id}`, headers)).body.data).toEqual(link);
    expect((await alice.client.get(`/v1/files/record/path/${q("cfg/link.txt")}/association/${device.universal_device_id}`, headers)).body.data).toEqual(link);
  });

  test.each([["2026-09-30"], ["2026-05-20"]])("at %s (before): links vanish from listings and read as not found", async (version) => {
    const { device, link } = await deviceWithLink();
    for (const listed of await listings(alice.client, device.universal_device_id, at(version))) expect(paths(listed)).toEqual(["cfg/own.txt"]);
    const byId = await alice.client.get(`/v1/files/record/${link.file_id}`, at(version));
    expect(byId.status).toBe(404);
    expect(byId.body.error.message).toBe("file not found: it needs API version 2026-10-02 or later");
    expect((await alice.client.get(`/v1/files/record/path/${q("cfg/link.txt")}/association/${device.universal_device_id}`, at(version))).status).toBe(404);
    // The file next to it is untouched.
    expect((await alice.client.get(`/v1/files/record/path/${q("cfg/own.txt")}/association/${device.universal_device_id}`, at(version))).status).toBe(200);
  });
});

describe("2026-10-05: adding files to and removing them from a session answer batch envelopes", () => {
  const sessionWithFile = async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "run.bin": "bytes" });
    const file = (await alice.client.get(`/v1/files/record/path/run.bin/association/${ds}`)).body.data;
    const session = (await alice.client.post("/v1/sessions", { name: unique("versions") })).body.data;
    return { fileId: file.file_id as string, sessionId: session.session_id as string };
  };

  test.each([["2026-10-05"], ["no header"]])("at %s: one element per file in request order, and the session beside them", async (version) => {
    const headers = version === "no header" ? {} : at(version);
    const { fileId, sessionId } = await sessionWithFile();
    const added = await alice.client.post(`/v1/sessions/id/${sessionId}/files`, { files: [{ file_id: fileId }] }, headers);
    expect(added.status).toBe(200);
    expect(added.body.data.responses).toEqual([{ data: expect.objectContaining({ file_id: fileId }), error: null }]);
    const removed = await alice.client.delete(`/v1/sessions/id/${sessionId}/files`, { file_ids: [fileId] }, headers);
    expect(removed.status).toBe(200);
    expect(removed.body.data.responses).toEqual([{ data: fileId, error: null }]);
  });

  test.each([["2026-10-02"], ["2026-05-20"]])("at %s (before): the session record itself", async (version) => {
    const { fileId, sessionId } = await sessionWithFile();
    const added = await alice.client.post(`/v1/sessions/id/${sessionId}/files`, { files: [{ file_id: fileId }] }, at(version));
    expect(added.status).toBe(200);
    expect(added.body.data).toMatchObject({ session_id: sessionId, org_id: alice.orgId });
    expect(added.body.data.responses).toBeUndefined();
    const removed = await alice.client.delete(`/v1/sessions/id/${sessionId}/files`, { file_ids: [fileId] }, at(version));
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ session_id: sessionId });
    expect(removed.body.data.responses).toBeUndefined();
  });
});

describe("2026-10-05: read-plan partitions carry `window` (older versions get `extent`)", () => {
  /** A file with `/imu` over [100, 200] of its time anchored at 1,000, over `dataRange` when given; the topic id and file id. */
  const topicOnFile = async (dataRange?: [number, number]) => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "run.mcap": "bytes" });
    const fileId = (await alice.client.get(`/v1/files/record/path/run.mcap/association/${ds}`)).body.data.file_id as string;
    const declare = (range?: [number, number]) => ({
      topic_name: "/imu",
      topic_schema: { fields: [{ name: "x", data_type: "float64", canonical_data_type: "number" }] },
      timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: 100, max_file_timestamp_ns: 200 }],
      representations: [{ file_id: fileId, storage_format: "mcap" }],
      anchor_ns: 1_000,
      ...(range ? { data_range: range } : {}),
    });
    const topics = dataRange ? [declare(dataRange), declare([dataRange[1], dataRange[1] + 10])] : [declare()];
    const res = await alice.client.post(`/v1/files/id/${fileId}/topics`, { topics });
    return { topicId: res.body.data.responses[0].data.topic_id as string, fileId };
  };
  const readPlan = (topicId: string, body: object, version: string) =>
    alice.client.post(`/v2/topics/id/${topicId}/read-plan`, { start_time: 0, end_time: 5_000, ...body }, version === "no header" ? {} : at(version));

  test.each([["2026-10-05"], ["no header"]])("at %s: each partition has its window, data_range and fs_node_id", async (version) => {
    const { topicId, fileId } = await topicOnFile();
    const res = await readPlan(topicId, {}, version);
    expect(res.status).toBe(200);
    expect(res.body.data.partitions).toEqual([expect.objectContaining({ window: { start: 0, end: 5_000 }, data_range: null, fs_node_id: fileId })]);
    expect(res.body.data.partitions[0].extent).toBeUndefined();
  });

  test.each([["2026-10-02"], ["2026-05-20"]])("at %s (before): each partition has its extent (its data in Unix time) and no window", async (version) => {
    const { topicId } = await topicOnFile();
    const res = await readPlan(topicId, {}, version);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ plan_version: 1, topic_id: topicId, window: { start: 0, end: 5_000 }, projection: { all: true } });
    expect(res.body.data.partitions).toEqual([
      {
        topic_part_id: expect.stringMatching(/^tpp_/),
        time_offset_ns: 1_000,
        extent: { start: 1_100, end: 1_200 },
        timestamp: { kind: "message_log_time", field: null, unit: null },
        scan_tasks: [expect.objectContaining({ format: "mcap", topic_name: "/imu" })],
      },
    ]);
  });

  test("before 2026-10-05 a read needing a partition window (a session holding part of a file) or of a file packing several parts is a 400; 2026-10-05 answers both", async () => {
    const { topicId, fileId } = await topicOnFile();
    const session = (await alice.client.post("/v1/sessions", { name: unique("versions") })).body.data.session_id;
    await alice.client.post(`/v1/sessions/id/${session}/files`, { files: [{ file_id: fileId, anchor_ns: 1_000, min_file_timestamp_ns: 150, max_file_timestamp_ns: 180 }] });
    const partly = await readPlan(topicId, { session_id: session }, "2026-10-02");
    expect(partly.status).toBe(400);
    expect(partly.body.error.message).toMatch(/covers part of file .* only; read it with API version 2026-10-05 or later/);
    expect((await readPlan(topicId, { session_id: session }, "2026-10-05")).body.data.partitions[0].window).toEqual({ start: 1_150, end: 1_180 });
    const packed = await topicOnFile([0, 10]);
    const several = await readPlan(packed.topicId, {}, "2026-10-02");
    expect(several.status).toBe(400);
    expect(several.body.error.message).toMatch(/holds several parts of the topic; read it with API version 2026-10-05 or later/);
    expect((await readPlan(packed.topicId, {}, "2026-10-05")).body.data.partitions).toHaveLength(2);
  });
});

describe("create_link (PUT .../link)", () => {
  const link = (client: ApiClient, association: string, body: object) => client.put(`/v1/files/association/id/${q(association)}/link`, body);
  const fileIn = async (client: ApiClient, files: Record<string, string>) => {
    const ds = await createDataset(client);
    await uploadFiles(client, ds, files);
    const first = Object.keys(files)[0]!;
    return { ds, file: (await client.get(`/v1/files/record/path/${q(first)}/association/${ds}`)).body.data };
  };

  test("pins a version: the current one by default, or an earlier one; into a device by device_id, a device type or the org", async () => {
    const { ds, file } = await fileIn(alice.client, { "v.txt": "one" });
    await uploadFiles(alice.client, ds, { "v.txt": "second" });
    const device = await createDevice(alice.client, { device_id: unique("fleet/robot") });
    const current = await link(alice.client, device.device_id, { relative_path: "now.txt", target_file_id: file.file_id });
    expect(current.body.data).toMatchObject({ uri: `roboto://file/${file.file_id}?v=2`, association_id: device.universal_device_id, version: 1, size: 0, fs_type: "link" });
    const earlier = await link(alice.client, device.universal_device_id, { relative_path: "deep/then.txt", target_file_id: file.file_id, target_version: 1 });
    expect(earlier.body.data).toMatchObject({ uri: `roboto://file/${file.file_id}?v=1`, parent_id: expect.stringMatching(/^dr_/) });
    const type = (await alice.client.post("/v1/device-types/create", { name: unique("type") })).body.data;
    expect((await link(alice.client, type.device_type_id, { relative_path: "t.txt", target_file_id: file.file_id })).body.data.association_id).toBe(type.device_type_id);
    expect((await link(alice.client, alice.orgId, { relative_path: "org.txt", target_file_id: file.file_id })).body.data.association_id).toBe(alice.orgId);
  });

  test("refusals: a dataset, a missing or unpinnable target, a link as target, a taken path; an upload over a link is a 409", async () => {
    const { ds, file } = await fileIn(alice.client, { "f.txt": "f" });
    const device = await createDevice(alice.client, { device_id: unique("robot") });
    const dv = device.universal_device_id;
    expectBadRequest(await link(alice.client, ds, { relative_path: "x.txt", target_file_id: file.file_id }), "association_id");
    expectBadRequest(await link(alice.client, dv, { relative_path: "x.txt", target_file_id: "fl_nope" }), "target_file_id");
    expectBadRequest(await link(alice.client, dv, { relative_path: "x.txt", target_file_id: file.file_id, target_version: 9 }), "target_version");
    expectBadRequest(await link(alice.client, dv, { relative_path: "../x.txt", target_file_id: file.file_id }), "relative_path");
    expectBadRequest(await link(alice.client, dv, { target_file_id: file.file_id }), "relative_path");
    expectBadRequest(await link(alice.client, dv, { relative_path: "x.txt" }), "target_file_id");
    const made = (await link(alice.client, dv, { relative_path: "x.txt", target_file_id: file.file_id })).body.data;
    expectBadRequest(await link(alice.client, dv, { relative_path: "y.txt", target_file_id: made.file_id }), "target_file_id");
    expect((await link(alice.client, dv, { relative_path: "x.txt", target_file_id: file.file_id })).status).toBe(409);
    await expect(uploadFiles(alice.client, dv, { "x.txt": "over" }, { associationType: "device" })).rejects.toThrow(/is a link/);
    expectBadRequest(await alice.client.get(`/v1/files/${made.file_id}/signed-url`), "file_id");
    // Nothing of the refused calls was written.
    expect((await alice.client.get(`/v1/files/association/id/${dv}`)).body.data.map((f: { relative_path: string }) => f.relative_path)).toEqual(["x.txt"]);
  });

  test("another org sees nothing: its device is a 404, its file an unpinnable target, and the link cannot be read", async () => {
    const { file } = await fileIn(alice.client, { "a.txt": "a" });
    const aliceDevice = await createDevice(alice.client, { device_id: unique("robot") });
    const bobDevice = await createDevice(bob.client, { device_id: unique("robot") });
    const made = (await link(alice.client, aliceDevice.universal_device_id, { relative_path: "a.txt", target_file_id: file.file_id })).body.data;
    expect((await link(bob.client, aliceDevice.universal_device_id, { relative_path: "b.txt", target_file_id: file.file_id })).status).toBe(404);
    const foreign = await link(bob.client, bobDevice.universal_device_id, { relative_path: "b.txt", target_file_id: file.file_id });
    const missing = await link(bob.client, bobDevice.universal_device_id, { relative_path: "b.txt", target_file_id: "fl_doesnotexist" });
    expectBadRequest(foreign, "target_file_id");
    expect(foreign.body.error.message).toBe(missing.body.error.message.replace("fl_doesnotexist", file.file_id));
    expect((await bob.client.get(`/v1/files/record/${made.file_id}`)).status).toBe(404);
    expect((await bob.client.get(`/v1/files/association/id/${bobDevice.universal_device_id}`)).body.data).toEqual([]);
  });
});

describe("the other 0.62 file routes", () => {
  test("POST delete-directories removes directories of a dataset and of a device; a path that is no directory is a 400 naming it", async () => {
    const ds = await createDataset(alice.client);
    await uploadFiles(alice.client, ds, { "a/1.txt": "1", "b/2.txt": "2" });
    const device = await createDevice(alice.client, { device_id: unique("robot") });
    await uploadFiles(alice.client, device.universal_device_id, { "c/3.txt": "3", "d/4.txt": "4" }, { associationType: "device" });
    expect((await alice.client.post(`/v1/datasets/${ds}/files/delete-directories`, { directory_paths: ["a"] })).status).toBe(200);
    expect((await alice.client.post(`/v1/files/association/id/${q(device.device_id)}/delete-directories`, { directory_paths: ["c"] })).status).toBe(200);
    const left = async (association: string) => (await alice.client.get(`/v1/files/association/id/${association}`)).body.data.map((f: { relative_path: string }) => f.relative_path);
    expect(await left(ds)).toEqual(["b/2.txt"]);
    expect(await left(device.universal_device_id)).toEqual(["d/4.txt"]);
    expectBadRequest(await alice.client.post(`/v1/files/association/id/${device.universal_device_id}/delete-directories`, { directory_paths: ["d", "nope"] }), "directory_paths[1]");
    expect(await left(device.universal_device_id)).toEqual(["d/4.txt"]);
    expect((await bob.client.post(`/v1/files/association/id/${device.universal_device_id}/delete-directories`, { directory_paths: ["d"] })).status).toBe(404);
    expect(await left(device.universal_device_id)).toEqual(["d/4.txt"]);
  });

  test("association credentials are scoped to the association's objects; another org's association is a 404; a bad mode a 400", async () => {
    const device = await createDevice(alice.client, { device_id: unique("robot") });
    const res = await alice.client.get(`/v1/files/association/id/${q(device.device_id)}/credentials?mode=ReadOnly`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([expect.objectContaining({ required_prefix: `${alice.orgId}/${device.universal_device_id}/`, bucket: expect.any(String) })]);
    expect((await alice.client.get(`/v1/files/association/id/${alice.orgId}/credentials`)).body.data[0].required_prefix).toBe(`${alice.orgId}/${alice.orgId}/`);
    expect((await bob.client.get(`/v1/files/association/id/${device.universal_device_id}/credentials`)).status).toBe(404);
    expectBadRequest(await alice.client.get(`/v1/files/association/id/${device.universal_device_id}/credentials?mode=Everything`), "mode");
  });
});

describe("2026-08-27: create_trigger takes the 0.62 body; the legacy body only under older versions", () => {
  const legacyBody = () => ({ name: unique("legacy"), action_name: "versions-action", for_each: "dataset", required_inputs: ["*.bag"] });
  const modelBody = () => ({ name: unique("model"), fires_on: { type: "events", events: ["dataset.created"], once_per: "occurrence" }, targets: [{ type: "invoke_action", target_id: "run", action: { name: "versions-action" } }] });
  const triggerNames = async (client: ApiClient) => (await client.get("/v1/triggers")).body.data.items.map((t: { name: string }) => t.name);

  beforeAll(async () => {
    expect((await alice.client.post("/v1/actions", { name: "versions-action", uri: "registry.example.com/a:1" })).status).toBe(200);
  });

  test.each([["2026-08-10"], ["2026-05-20"]])("at %s (before): the legacy body creates a legacy trigger; the 0.62 body is a 400 naming fires_on, and nothing is written", async (version) => {
    const legacy = await alice.client.post("/v1/triggers", legacyBody(), at(version));
    expect({ status: legacy.status, engine: legacy.body.data?.engine }).toEqual({ status: 200, engine: "v1" });
    const model = modelBody();
    const refused = await alice.client.post("/v1/triggers", model, at(version));
    expectBadRequest(refused, "fires_on");
    expect(refused.body.error.message).toMatch(/^fires_on: needs API version 2026-08-27 or later/);
    expect(await triggerNames(alice.client)).not.toContain(model.name);
  });

  test.each([["2026-08-27"], ["2026-10-06"], ["no header"]])("at %s: the 0.62 body creates; the legacy body is a 400 naming its first legacy field, and nothing is written", async (version) => {
    const headers = version === "no header" ? {} : at(version);
    const model = await alice.client.post("/v1/triggers", modelBody(), headers);
    expect({ status: model.status, engine: model.body.data?.engine }).toEqual({ status: 200, engine: "v2" });
    const legacy = legacyBody();
    const refused = await alice.client.post("/v1/triggers", legacy, headers);
    expectBadRequest(refused, "action_name");
    expect(refused.body.error.message).toMatch(/^action_name: is accepted only under API versions before 2026-08-27/);
    expect(await triggerNames(alice.client)).not.toContain(legacy.name);
    expectBadRequest(await alice.client.post("/v1/triggers", { name: unique("bare"), causes: ["file_upload"] }, headers), "causes");
    expectBadRequest(await alice.client.post("/v1/triggers", { name: unique("bare") }, headers), "fires_on");
  });

  test("another org's caller sees neither shape's trigger", async () => {
    const model = (await alice.client.post("/v1/triggers", modelBody())).body.data;
    expect((await bob.client.get(`/v1/triggers/id/${model.trigger_id}`)).status).toBe(404);
    expect(await triggerNames(bob.client)).not.toContain(model.name);
  });
});
