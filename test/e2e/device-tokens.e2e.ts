import { randomBytes } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { signedClient, type Principal } from "@hangar/shared";
import { AdminService } from "@hangar/shared/proto/admin";
import {
  apiClient,
  createDevice,
  expectError,
  startWithTenants,
  type ApiClient,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";
import { ok } from "./invocation-fixtures";

// A device's tokens through the gateway (GET and POST /v1/devices/id/{device_id}/tokens): API tokens
// of the device's user `device:<universal_device_id>`, a plain member of the device's org. Creating
// one takes an org owner or admin; any member lists them. The token acts as the device in its org
// only, and stops working when the device is deleted. The admin service's device-user RPCs behind
// them answer services only.

let t: TestPlatform;
let alice: TestTenant; // an admin of her org
let member: { userId: string; client: ApiClient }; // a plain member of alice's org
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["device-tokens", "device-tokens-other"]);
  ok(await t.admin.put(`/v1/orgs/id/${alice.orgId}/users/id/${encodeURIComponent(alice.userId)}`, { add_roles: ["admin"] }));
  const userId = `plain-${randomBytes(3).toString("hex")}@example.com`;
  ok(await t.admin.post("/v1/users", { user_id: userId, org_id: alice.orgId }));
  const secret = ok(await t.admin.post("/v1/tokens", { name: "test", expiry_days: 1 }, { "X-Service-User-Id": userId })).secret;
  member = { userId, client: apiClient(t.url, secret) };
});
afterAll(() => t?.close());

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DAY_MS = 86_400_000;
const INVALID_TOKEN = "invalid, expired or revoked API token";

let counter = 0;
const newDevice = (client: ApiClient = alice.client) => createDevice(client, { device_id: `fleet/robot ${++counter}` });
const tokensOf = (deviceId: string) => `/v1/devices/id/${encodeURIComponent(deviceId)}/tokens`;

async function orgMembers(orgId: string): Promise<[string, string[]][]> {
  return ok(await t.admin.get(`/v1/orgs/id/${orgId}/users`)).map((m: { user: { user_id: string }; roles: string[] }) => [m.user.user_id, m.roles]);
}

describe("create_device_token", () => {
  test("returns the token result with the secret and the device user; api_scopes echoed once each", async () => {
    const device = await newDevice();
    const res = await alice.client.post(tokensOf(device.device_id), {
      name: "uploader",
      description: "for uploads",
      expiry_days: 30,
      api_scopes: ["files.upload", "datasets.create", "files.upload"],
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(["secret", "user_id", "context"]);
    const deviceUser = `device:${device.universal_device_id}`;
    const { secret, user_id, context } = res.body.data;
    expect(secret).toEqual(expect.stringMatching(/^\S{32,}$/));
    expect(user_id).toBe(deviceUser);
    expect(context).toEqual({
      token_id: expect.stringMatching(/^tk_/),
      user_id: deviceUser,
      name: "uploader",
      description: "for uploads",
      created: expect.stringMatching(ISO_MS),
      expires: expect.stringMatching(ISO_MS),
      last_used: null,
      enabled: true,
      api_scopes: ["files.upload", "datasets.create"],
    });
    expect(Date.parse(context.expires) - Date.parse(context.created)).toBe(30 * DAY_MS);
    // The first token made the device's user, a plain member of the org.
    expect(await orgMembers(alice.orgId)).toContainEqual([deviceUser, ["user"]]);
  });

  test("null description and api_scopes (as the SDK sends them) mean none and unrestricted", async () => {
    const device = await newDevice();
    const { context } = ok(await alice.client.post(tokensOf(device.device_id), { name: "plain", expiry_days: 1, description: null, api_scopes: null }));
    expect(context).toMatchObject({ name: "plain", description: null, api_scopes: [] });
  });

  test("expiry_days and name are required; a 400 names the field", async () => {
    const device = await newDevice();
    expectError(await alice.client.post(tokensOf(device.device_id), { name: "forever" }), 400, "expiry_days: is required");
    expectError(await alice.client.post(tokensOf(device.device_id), { expiry_days: 1 }), 400, "name: is required");
    expectError(await alice.client.post(tokensOf(device.device_id), { name: "  ", expiry_days: 1 }), 400, "name: must not be empty");
  });

  test("expiry_days outside 1..3650 and an unknown scope are 400s, and nothing is created", async () => {
    const device = await newDevice();
    for (const days of [0, -1, 3651]) {
      expectError(await alice.client.post(tokensOf(device.device_id), { name: "bad", expiry_days: days }), 400, "expiry_days: must be from 1 to 3650");
    }
    expectError(
      await alice.client.post(tokensOf(device.device_id), { name: "bad", expiry_days: 1, api_scopes: ["files.upload", "everything"] }),
      400,
      "api_scopes[1]: unknown scope 'everything'; expected one of api.everything_else, datasets.create, files.import, files.upload",
    );
    expect(ok(await alice.client.get(tokensOf(device.device_id)))).toEqual([]);
    expect((await orgMembers(alice.orgId)).map(([id]) => id)).not.toContain(`device:${device.universal_device_id}`);
    for (const days of [1, 3650]) expect((await alice.client.post(tokensOf(device.device_id), { name: "ok", expiry_days: days })).status).toBe(200);
  });

  test("concurrent first tokens of a device all succeed, as one device user", async () => {
    const device = await newDevice();
    const made = await Promise.all([1, 2, 3].map((i) => alice.client.post(tokensOf(device.device_id), { name: `racing-${i}`, expiry_days: 1 })));
    expect(made.map((res) => [res.status, res.body.data.user_id])).toEqual([1, 2, 3].map(() => [200, `device:${device.universal_device_id}`]));
    expect(ok(await alice.client.get(tokensOf(device.device_id))).map((tk: { context: { name: string } }) => tk.context.name).sort()).toEqual(["racing-1", "racing-2", "racing-3"]);
  });

  test("a plain member of the org is refused with a 401", async () => {
    const device = await newDevice();
    expectError(
      await member.client.post(tokensOf(device.device_id), { name: "mine", expiry_days: 1 }),
      401,
      `creating a device's tokens in org '${alice.orgId}' needs the owner or admin role`,
    );
    expect(ok(await alice.client.get(tokensOf(device.device_id)))).toEqual([]);
  });
});

describe("list_device_tokens", () => {
  test("lists the device's tokens oldest first, as created but without secrets; any member may list", async () => {
    const device = await newDevice();
    expect(ok(await alice.client.get(tokensOf(device.device_id)))).toEqual([]);
    const first = ok(await alice.client.post(tokensOf(device.device_id), { name: "first", expiry_days: 1 }));
    const second = ok(await alice.client.post(tokensOf(device.device_id), { name: "second", expiry_days: 2, api_scopes: ["files.upload"] }));
    const other = await newDevice();
    ok(await alice.client.post(tokensOf(other.device_id), { name: "elsewhere", expiry_days: 1 }));

    for (const client of [alice.client, member.client]) {
      const res = await client.get(tokensOf(device.device_id));
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([
        { ...first, secret: null },
        { ...second, secret: null },
      ]);
      expect(JSON.stringify(res.body)).not.toContain(first.secret);
      expect(JSON.stringify(res.body)).not.toContain(second.secret);
    }
  });
});

describe("device lookup", () => {
  test("another org's device, or an unknown one, is a 404 on both routes", async () => {
    const bobs = await newDevice(bob.client);
    for (const deviceId of [bobs.device_id, "no-such-device"]) {
      const message = `device '${deviceId}' not found`;
      expectError(await alice.client.get(tokensOf(deviceId)), 404, message);
      expectError(await alice.client.post(tokensOf(deviceId), { name: "x", expiry_days: 1 }), 404, message);
      expectError(await alice.client.get(tokensOf(deviceId), { "X-Service-Resource-Owner-Id": bob.orgId }), 404, message);
    }
  });
});

describe("a device token through the gateway", () => {
  test("acts as the device user in the device's org: whoami, reading and creating the org's datasets", async () => {
    const device = await newDevice();
    const { secret } = ok(await alice.client.post(tokensOf(device.device_id), { name: "robot", expiry_days: 1, api_scopes: ["files.upload"] }));
    const robot = apiClient(t.url, secret);
    const deviceUser = `device:${device.universal_device_id}`;

    expect(ok(await robot.get("/v1/users/whoami"))).toMatchObject({ user_id: deviceUser, name: device.device_id, is_service_user: true, is_system_admin: false });
    expect(ok(await robot.get("/v1/orgs/caller")).map((o: { org_id: string }) => o.org_id)).toEqual([alice.orgId]);
    const dataset = ok(await alice.client.post("/v1/datasets", { name: "seen-by-robot" }));
    expect(ok(await robot.get(`/v1/datasets/${dataset.dataset_id}`)).dataset_id).toBe(dataset.dataset_id);
    expect(ok(await robot.post("/v1/datasets", { name: "made-by-robot" }))).toMatchObject({ org_id: alice.orgId, created_by: deviceUser });
    // A plain member: it cannot make tokens, for itself as a device nor for other devices.
    expect((await robot.post(tokensOf(device.device_id), { name: "more", expiry_days: 1 })).status).toBe(401);
  });

  test("cannot act in another org", async () => {
    const device = await newDevice();
    const robot = apiClient(t.url, ok(await alice.client.post(tokensOf(device.device_id), { name: "robot", expiry_days: 1 })).secret);
    const bobs = ok(await bob.client.post("/v1/datasets", { name: "bobs" }));
    expect((await robot.get(`/v1/datasets/${bobs.dataset_id}`)).status).toBe(404);
    expect((await robot.get(`/v1/datasets/${bobs.dataset_id}`, { "X-Service-Org-Id": bob.orgId })).status).toBe(401);
    expect((await robot.get(`/v1/datasets/${bobs.dataset_id}`, { "X-Service-Resource-Owner-Id": bob.orgId })).status).toBe(404);
    expect((await robot.post("/v1/datasets", { name: "intruder" }, { "X-Service-Org-Id": bob.orgId })).status).toBe(401);
  });

  test("stops working once the device is deleted; the device user leaves the org", async () => {
    const device = await newDevice();
    const robot = apiClient(t.url, ok(await alice.client.post(tokensOf(device.device_id), { name: "robot", expiry_days: 1 })).secret);
    const deviceUser = `device:${device.universal_device_id}`;
    expect(ok(await robot.get("/v1/users/whoami")).user_id).toBe(deviceUser);

    expect(await alice.client.delete(`/v1/devices/id/${encodeURIComponent(device.device_id)}`)).toMatchObject({ status: 200, body: { data: null } });
    expectError(await robot.get("/v1/users/whoami"), 401, INVALID_TOKEN);
    expect((await orgMembers(alice.orgId)).map(([id]) => id)).not.toContain(deviceUser);
    // A new device of the same device_id is another device, with no tokens.
    const again = await createDevice(alice.client, { device_id: device.device_id });
    expect(ok(await alice.client.get(tokensOf(again.device_id)))).toEqual([]);
  });
});

describe("device users", () => {
  test("create_user refuses the `device:` prefix", async () => {
    expectError(await t.admin.post("/v1/users", { user_id: "device:dv_forged", org_id: alice.orgId }), 400, "user_id: 'device:' is reserved for the users of devices");
  });

  test("the admin service's device-user RPCs answer services only, in their own org, about device users", async () => {
    const admin = (principal: Principal) => signedClient({ service: AdminService, baseUrl: t.platform.services.admin.url, principal, internalAuthSecret: t.internalAuthSecret });
    const service: Principal = { kind: "service", subject: "data", orgId: alice.orgId, memberships: [{ orgId: alice.orgId, roles: ["service"] }], isSystemAdmin: false };
    const user: Principal = { kind: "user", subject: alice.userId, orgId: alice.orgId, memberships: [{ orgId: alice.orgId, roles: ["admin", "user"] }], isSystemAdmin: false };
    const request = { orgId: alice.orgId, deviceUserId: "device:dv_direct", name: "direct", expiryDays: 1n };
    const refusal = (call: Promise<unknown>) => call.then(() => undefined, (e: unknown) => ConnectError.from(e));

    expect(await refusal(admin(user).createDeviceUserToken(request))).toMatchObject({ code: Code.Unauthenticated, rawMessage: "internal operation" });
    expect(await refusal(admin(user).listDeviceUserTokens(request))).toMatchObject({ code: Code.Unauthenticated });
    expect(await refusal(admin(user).deleteDeviceUser(request))).toMatchObject({ code: Code.Unauthenticated });
    expect(await refusal(admin(service).createDeviceUserToken({ ...request, orgId: bob.orgId }))).toMatchObject({ code: Code.InvalidArgument, rawMessage: expect.stringMatching(/^org_id: /) });
    expect(await refusal(admin(service).createDeviceUserToken({ ...request, deviceUserId: alice.userId }))).toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringMatching(/^device_user_id: /),
    });
    expect(await refusal(admin(service).deleteDeviceUser({ orgId: alice.orgId, deviceUserId: alice.userId }))).toMatchObject({ code: Code.InvalidArgument });
    expect(await orgMembers(alice.orgId)).toContainEqual([alice.userId, ["admin", "user"]]);
  });
});
