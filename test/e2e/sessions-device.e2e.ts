import { createDataset, createDevice, expectBadRequest, expectError, startWithTenants, uploadFiles, type ApiClient, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// create_device_sessions through the gateway: 1 to 100 declarations answered one element each in
// request order; a declaration naming a file that is not an available file of the org is refused
// (404) and creates no session while the others are written; a name the device's sessions carry
// is reused, so a resend converges; a malformed batch is a 400 and an unknown device a 404, both
// writing nothing; another org's device is a 404.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["device-sessions-alice", "device-sessions-bob"]);
});
afterAll(() => t?.close());

let counter = 0;
const unique = (name: string) => `${name}-${++counter}`;

async function filesOf(client: ApiClient, paths: string[]): Promise<string[]> {
  const datasetId = await createDataset(client, "device-sessions");
  await uploadFiles(client, datasetId, Object.fromEntries(paths.map((p) => [p, p])));
  const ids: string[] = [];
  for (const path of paths) ids.push((await client.get(`/v1/files/record/path/${encodeURIComponent(path)}/association/${datasetId}`)).body.data.file_id);
  return ids;
}

const declare = (client: ApiClient, deviceId: string, sessions: unknown[]) => client.post(`/v1/devices/id/${encodeURIComponent(deviceId)}/sessions`, { sessions });
const sessionCount = async (client: ApiClient, deviceId: string) => (await client.get(`/v1/devices/id/${encodeURIComponent(deviceId)}/sessions`)).body.data.total_count;

describe("create_device_sessions", () => {
  test("creates the declared sessions of the device, in request order, with their files anchored", async () => {
    const device = await createDevice(alice.client, { device_id: `fleet/${unique("robot")}` });
    const [a, b] = await filesOf(alice.client, ["a.mcap", "b.mcap"]);
    const res = await declare(alice.client, device.device_id, [
      { name: "morning", metadata: { shift: 1 }, tags: ["x"], completion_policy: { inactivity_minutes: 10 }, anchor_ns: 1_000_000, files: [{ file_id: a, min_file_timestamp_ns: 0, max_file_timestamp_ns: 50 }] },
      { name: "evening", files: [{ file_id: b, anchor_ns: 5_000, min_file_timestamp_ns: 1, max_file_timestamp_ns: 2 }] },
    ]);
    expect(res.status).toBe(200);
    const [morning, evening] = res.body.data.responses;
    expect(morning).toEqual({
      data: expect.objectContaining({ name: "morning", org_id: alice.orgId, metadata: { shift: 1 }, tags: ["x"], completion_policy: { inactivity_minutes: 10 }, status: "in_progress", min_timestamp_ns: 1_000_000, max_timestamp_ns: 1_000_050 }),
      error: null,
    });
    expect(evening.data).toMatchObject({ name: "evening", min_timestamp_ns: 5_001, max_timestamp_ns: 5_002, completion_policy: null });
    expect((await alice.client.get(`/v1/sessions/id/${morning.data.session_id}`)).body.data).toEqual(morning.data);
    expect((await alice.client.get(`/v1/sessions/id/${evening.data.session_id}`)).body.data).toEqual(evening.data);
    const listed = (await alice.client.get(`/v1/devices/id/${encodeURIComponent(device.device_id)}/sessions`)).body.data;
    expect(listed.items.map((s: any) => s.session_id)).toEqual([evening.data.session_id, morning.data.session_id]);
    expect((await alice.client.get(`/v1/sessions/id/${morning.data.session_id}/devices`)).body.data.items).toEqual([device.device_id]);
    expect((await alice.client.get(`/v1/sessions/id/${morning.data.session_id}/files`)).body.data.items[0]).toMatchObject({ file_id: a, unix_epoch_offset_ns: 1_000_000 });
  });

  test("a resend converges: a name the device's sessions carry is reused and gains the declared files", async () => {
    const device = await createDevice(alice.client, { device_id: unique("robot") });
    const [a, b] = await filesOf(alice.client, ["a.mcap", "b.mcap"]);
    const first = (await declare(alice.client, device.device_id, [{ name: "run", files: [{ file_id: a }] }])).body.data.responses[0].data;
    const again = (await declare(alice.client, device.device_id, [{ name: "run", files: [{ file_id: b }] }])).body.data.responses[0].data;
    expect(again.session_id).toBe(first.session_id);
    expect((await alice.client.get(`/v1/sessions/id/${first.session_id}/files`)).body.data.items.map((f: any) => f.file_id).sort()).toEqual([a, b].sort());
    expect(await sessionCount(alice.client, device.device_id)).toBe(1);
    // Another device's session of the same name is another session.
    const other = await createDevice(alice.client, { device_id: unique("robot") });
    expect((await declare(alice.client, other.device_id, [{ name: "run" }])).body.data.responses[0].data.session_id).not.toBe(first.session_id);
  });

  test("a declaration naming a file that is not an available file of the org is refused (404) and creates no session; the others are written", async () => {
    const device = await createDevice(alice.client, { device_id: unique("robot") });
    const [a] = await filesOf(alice.client, ["a.mcap"]);
    const [bobs] = await filesOf(bob.client, ["b.mcap"]);
    const res = await declare(alice.client, device.device_id, [
      { name: "good", files: [{ file_id: a }] },
      { name: "missing", files: [{ file_id: a }, { file_id: "fl_missing" }] },
      { name: "foreign", files: [{ file_id: bobs }] },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.responses).toEqual([
      { data: expect.objectContaining({ name: "good" }), error: null },
      { data: null, error: { error: { error_code: 404, message: "file 'fl_missing' not found", stack_trace: "" } } },
      { data: null, error: { error: { error_code: 404, message: `file '${bobs}' not found`, stack_trace: "" } } },
    ]);
    expect(await sessionCount(alice.client, device.device_id)).toBe(1);
  });

  test("an unknown device, or another org's, is a 404 and creates nothing", async () => {
    const bobsDevice = await createDevice(bob.client, { device_id: unique("robot") });
    const before = (await alice.client.get("/v1/sessions")).body.data.total_count;
    expectError(await declare(alice.client, "no-such-robot", [{ name: "x" }]), 404, "device 'no-such-robot' not found");
    expectError(await declare(alice.client, bobsDevice.device_id, [{ name: "x" }]), 404, `device '${bobsDevice.device_id}' not found`);
    expect((await alice.client.get("/v1/sessions")).body.data.total_count).toBe(before);
    expect(await sessionCount(bob.client, bobsDevice.device_id)).toBe(0);
  });

  test.each([
    [[], "sessions"],
    [Array.from({ length: 101 }, (_, i) => ({ name: `s${i}` })), "sessions"],
    [[{ name: "" }], "sessions[0].name"],
    [[{}], "sessions[0].name"],
    [[{ name: "a" }, { name: "a" }], "sessions[1].name"],
    [[{ name: "a", anchor_ns: 0 }], "sessions[0].anchor_ns"],
    [[{ name: "a", completion_policy: { inactivity_minutes: 0 } }], "sessions[0].completion_policy.inactivity_minutes"],
    [[{ name: "a", tags: [""] }], "sessions[0].tags[0]"],
    [[{ name: "a", files: [{ file_id: "F", anchor_ns: -5 }] }], "sessions[0].files[0].anchor_ns"],
    [[{ name: "a", files: [{ file_id: "F" }, { file_id: "F" }] }], "sessions[0].files[1].file_id"],
    [[{ name: "a", files: [{ file_id: "F", min_file_timestamp_ns: 3 }] }], "sessions[0].files[0].max_file_timestamp_ns"],
  ])("a malformed batch (case %#) is a 400 naming the field and writes nothing", async (sessions, field) => {
    const device = await createDevice(alice.client, { device_id: unique("robot") });
    const [a] = await filesOf(alice.client, ["a.mcap"]);
    const body = JSON.parse(JSON.stringify(sessions).replaceAll('"F"', JSON.stringify(a)));
    // A well-formed declaration beside the bad ones is not written either.
    expectBadRequest(await declare(alice.client, device.device_id, body.length === 0 ? body : [...body, { name: "fine" }]), field);
    expect(await sessionCount(alice.client, device.device_id)).toBe(0);
  });

  test("more than 500 files and topics in one batch is a 400", async () => {
    const device = await createDevice(alice.client, { device_id: unique("robot") });
    const sessions = Array.from({ length: 6 }, (_, i) => ({ name: `s${i}`, files: Array.from({ length: 90 }, (_, j) => ({ file_id: `fl_${i}_${j}` })) }));
    expectBadRequest(await declare(alice.client, device.device_id, sessions), "sessions");
    expect(await sessionCount(alice.client, device.device_id)).toBe(0);
  });
});
