import { Code } from "@connectrpc/connect";
import { checkDeviceUser, createDeviceUserToken, deleteDeviceUser, listDeviceUserTokens } from "./device-users";
import { inMemoryAdmin, memberAt, orgAt, userAt } from "./in-memory-repositories.fixture";
import { serviceCaller } from "./principals.fixture";

const data = serviceCaller("data", "og_1");
const device = { orgId: "og_1", deviceUserId: "device:dv_1" };
const request = { ...device, name: "robot", expiryDays: 7n, apiScopes: [], requestedBy: "alice", userName: "dv_1" };
const seed = () => inMemoryAdmin({ orgs: [orgAt("og_1"), orgAt("og_2")], users: [userAt("alice"), userAt("device:dv_9")], memberships: [memberAt("og_2", "device:dv_9", ["user"])] });

describe("checkDeviceUser", () => {
  test("answers the device user of the org the component acts in", () => {
    expect(checkDeviceUser(data, device)).toBe("device:dv_1");
  });

  test.each([
    ["an empty org", { orgId: "", deviceUserId: "device:dv_1" }, /org_id: must be the org the calling service acts in/],
    ["another org", { orgId: "og_2", deviceUserId: "device:dv_1" }, /org_id: /],
    ["a person", { orgId: "og_1", deviceUserId: "alice" }, /device_user_id: must be 'device:<universal_device_id>'/],
  ])("%s is a 400 naming the field", (_what, ref, message) => {
    expect(() => checkDeviceUser(data, ref)).toThrow(message);
  });

  test("a component acting in no org addresses none", () => {
    expect(() => checkDeviceUser(serviceCaller("data"), device)).toThrow(/org_id: /);
  });
});

describe("createDeviceUserToken", () => {
  test("the first token creates the device user (a service user, created by the requester) as a plain member", async () => {
    const { uow, state } = seed();
    const { token, secret } = await createDeviceUserToken(uow, data, request);
    expect(secret).toMatch(/^hgr_/);
    expect(state.users.find((u) => u.userId === "device:dv_1")).toMatchObject({ name: "dv_1", isServiceUser: true, isSystemAdmin: false, createdBy: "alice" });
    expect(state.memberships.find((m) => m.userId === "device:dv_1")).toMatchObject({ orgId: "og_1", roles: ["user"] });
    expect(state.tokens.map((t) => t.tokenId)).toEqual([token.tokenId]);
  });

  test("later tokens reuse the user and its membership; without a requester the component is the creator", async () => {
    const { uow, state } = seed();
    await createDeviceUserToken(uow, data, { ...request, requestedBy: "" });
    await createDeviceUserToken(uow, data, { ...request, userName: "renamed" });
    expect(state.users.filter((u) => u.userId === "device:dv_1")).toEqual([expect.objectContaining({ name: "dv_1", createdBy: "data" })]);
    expect(state.memberships.filter((m) => m.userId === "device:dv_1")).toHaveLength(1);
    expect(state.tokens).toHaveLength(2);
  });

  test("a device user of another org is 412 and nothing is written", async () => {
    const { uow, state } = seed();
    const before = structuredClone(state);
    await expect(createDeviceUserToken(uow, data, { ...request, deviceUserId: "device:dv_9" })).rejects.toMatchObject({ code: Code.FailedPrecondition });
    expect(state).toEqual(before);
  });

  test("the addressing is checked before the token's fields", async () => {
    await expect(createDeviceUserToken(seed().uow, data, { ...request, deviceUserId: "alice", expiryDays: 0n })).rejects.toThrow(/device_user_id: /);
  });
});

describe("listDeviceUserTokens and deleteDeviceUser", () => {
  test("a device user not in the org has no tokens there, and is not deleted from it", async () => {
    const { uow, state } = seed();
    const ref = { orgId: "og_1", deviceUserId: "device:dv_9" };
    await expect(listDeviceUserTokens(uow, data, ref)).resolves.toEqual([]);
    await deleteDeviceUser(uow, data, ref);
    expect(state.users.map((u) => u.userId)).toContain("device:dv_9");
  });

  test("the org's device user lists its tokens; deleting it takes its membership and tokens", async () => {
    const { uow, state } = seed();
    const first = await createDeviceUserToken(uow, data, request);
    const second = await createDeviceUserToken(uow, data, request);
    await expect(listDeviceUserTokens(uow, data, device)).resolves.toEqual([first.token, second.token]);
    await deleteDeviceUser(uow, data, device);
    expect(state.users.map((u) => u.userId)).not.toContain("device:dv_1");
    expect(state.memberships.filter((m) => m.userId === "device:dv_1")).toEqual([]);
    expect(state.tokens).toEqual([]);
  });
});
