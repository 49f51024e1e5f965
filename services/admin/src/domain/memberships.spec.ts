import { Code } from "@connectrpc/connect";
import { inMemoryAdmin, memberAt, orgAt, userAt } from "./in-memory-repositories.fixture";
import { removeOrgUser, requireOwnerForOwnerRole, updateOrgUserRoles } from "./memberships";
import { userCaller } from "./principals.fixture";

// og_1: alice owns it, bob administers it, carol is a plain member; `more` adds memberships.
const seed = (...more: ReturnType<typeof memberAt>[]) =>
  inMemoryAdmin({
    orgs: [orgAt("og_1")],
    users: [userAt("alice"), userAt("bob"), userAt("carol"), userAt("dora")],
    memberships: [memberAt("og_1", "alice", ["owner", "user"], 1), memberAt("og_1", "bob", ["admin", "user"], 2), memberAt("og_1", "carol", ["user"], 3), ...more],
  });
const dora = memberAt("og_1", "dora", ["owner", "user"], 4);
const alice = userCaller("alice", { og_1: ["owner", "user"] });
const bob = userCaller("bob", { og_1: ["admin", "user"] });
const root = userCaller("root", {}, { isSystemAdmin: true });

describe("requireOwnerForOwnerRole", () => {
  test("an edit that neither grants nor takes the owner role needs no owner", () => {
    expect(() => requireOwnerForOwnerRole(bob, "og_1", ["user"], ["admin", "user"])).not.toThrow();
  });

  test.each([
    ["granting", ["user"], ["owner", "user"]],
    ["taking", ["owner", "user"], ["user"]],
  ])("%s the owner role needs an owner or a system admin; an admin is 403", (_what, before, after) => {
    expect(() => requireOwnerForOwnerRole(alice, "og_1", before, after)).not.toThrow();
    expect(() => requireOwnerForOwnerRole(root, "og_1", before, after)).not.toThrow();
    expect(() => requireOwnerForOwnerRole(bob, "og_1", before, after)).toThrow(expect.objectContaining({ code: Code.PermissionDenied }));
  });

  test("owning another org does not count", () => {
    const other = userCaller("dave", { og_2: ["owner", "user"], og_1: ["admin", "user"] });
    expect(() => requireOwnerForOwnerRole(other, "og_1", ["user"], ["owner", "user"])).toThrow(expect.objectContaining({ code: Code.PermissionDenied }));
  });
});

describe("removeOrgUser", () => {
  test("removes the member under the org's lock and records who removed whom with the roles held", async () => {
    const { uow, state } = seed();
    await removeOrgUser(uow, bob, "og_1", "carol");
    expect(state.memberships.map((m) => m.userId)).toEqual(["alice", "bob"]);
    expect(state.locks).toEqual(["og_1"]);
    expect(state.audit).toEqual([{ orgId: "og_1", userId: "carol", action: "removed", actor: "bob", rolesBefore: ["user"], rolesAfter: [] }]);
  });

  test("removing someone already removed changes nothing and records nothing", async () => {
    const { uow, state } = seed();
    await removeOrgUser(uow, alice, "og_1", "carol");
    await removeOrgUser(uow, alice, "og_1", "carol");
    expect(state.audit).toHaveLength(1);
  });

  test("someone who never was a member is 404", async () => {
    const { uow, state } = seed();
    await expect(removeOrgUser(uow, alice, "og_1", "zed")).rejects.toMatchObject({ code: Code.NotFound });
    expect(state.audit).toEqual([]);
  });

  test("an admin may not remove an owner (403); nothing is written", async () => {
    const { uow, state } = seed(dora);
    await expect(removeOrgUser(uow, bob, "og_1", "dora")).rejects.toMatchObject({ code: Code.PermissionDenied });
    expect(state.memberships).toHaveLength(4);
    expect(state.audit).toEqual([]);
  });

  test("an owner may remove another owner while one stays", async () => {
    const { uow, state } = seed(dora);
    await removeOrgUser(uow, alice, "og_1", "dora");
    expect(state.memberships.map((m) => m.userId)).toEqual(["alice", "bob", "carol"]);
  });

  test("the last owner cannot leave (409), even by itself; nothing is written", async () => {
    const { uow, state } = seed();
    await expect(removeOrgUser(uow, alice, "og_1", "alice")).rejects.toMatchObject({ code: Code.AlreadyExists, message: expect.stringMatching(/must keep at least one owner/) });
    expect(state.memberships).toHaveLength(3);
    expect(state.audit).toEqual([]);
  });

  test("a member leaving needs no owner role when it holds none", async () => {
    const { uow, state } = seed();
    await removeOrgUser(uow, userCaller("carol", { og_1: ["user"] }), "og_1", "carol");
    expect(state.audit).toEqual([expect.objectContaining({ userId: "carol", actor: "carol", action: "removed" })]);
  });
});

describe("updateOrgUserRoles", () => {
  const change = (userId: string, addRoles: string[], removeRoles: string[] = []) => ({ orgId: "og_1", userId, addRoles, removeRoles });

  test("adds and removes roles, keeps the member role, and records the change", async () => {
    const { uow, state } = seed();
    await updateOrgUserRoles(uow, bob, change("carol", ["admin"], ["user"]));
    expect(state.memberships.find((m) => m.userId === "carol")?.roles).toEqual(["admin", "user"]);
    expect(state.locks).toEqual(["og_1"]);
    expect(state.audit).toEqual([{ orgId: "og_1", userId: "carol", action: "roles", actor: "bob", rolesBefore: ["user"], rolesAfter: ["admin", "user"] }]);
  });

  test("unknown role names are 400s naming the field and index, checked before the org is locked", async () => {
    const { uow, state } = seed();
    await expect(updateOrgUserRoles(uow, alice, change("carol", ["admin", "boss"]))).rejects.toThrow(/add_roles\[1\]: unknown role 'boss'/);
    await expect(updateOrgUserRoles(uow, alice, change("zed", [], ["root"]))).rejects.toThrow(/remove_roles\[0\]/);
    expect(state.locks).toEqual([]);
  });

  test("`member` reads as `user`; an edit that changes nothing records nothing", async () => {
    const { uow, state } = seed();
    await updateOrgUserRoles(uow, bob, change("carol", ["member"]));
    expect(state.memberships.find((m) => m.userId === "carol")?.roles).toEqual(["user"]);
    expect(state.audit).toEqual([]);
  });

  test("granting the owner role needs an owner: an admin gets 403, an owner succeeds", async () => {
    const { uow, state } = seed();
    await expect(updateOrgUserRoles(uow, bob, change("bob", ["owner"]))).rejects.toMatchObject({ code: Code.PermissionDenied });
    expect(state.audit).toEqual([]);
    await updateOrgUserRoles(uow, alice, change("bob", ["owner"]));
    expect(state.memberships.find((m) => m.userId === "bob")?.roles).toEqual(["owner", "admin", "user"]);
  });

  test("the last owner keeps the owner role (409); with a second owner it can be given up", async () => {
    const { uow, state } = seed();
    await expect(updateOrgUserRoles(uow, alice, change("alice", [], ["owner"]))).rejects.toMatchObject({ code: Code.AlreadyExists });
    await updateOrgUserRoles(uow, alice, change("bob", ["owner"]));
    await updateOrgUserRoles(uow, alice, change("alice", [], ["owner"]));
    expect(state.memberships.find((m) => m.userId === "alice")?.roles).toEqual(["user"]);
  });

  test("a user who is not a member is 404", async () => {
    const { uow } = seed();
    await expect(updateOrgUserRoles(uow, alice, change("zed", ["admin"]))).rejects.toMatchObject({ code: Code.NotFound });
  });
});
