import { Code } from "@connectrpc/connect";
import { inMemoryAdmin, memberAt, orgAt, userAt } from "./in-memory-repositories.fixture";
import { createOrg, getOrg, listOrgMembers } from "./orgs";

describe("createOrg", () => {
  test("a free, active org (trimmed name) whose creator is its owner, written together", async () => {
    const { uow, state } = inMemoryAdmin({ users: [userAt("alice")] });
    const org = await createOrg(uow, "alice", "  Robots  ");
    expect(org).toMatchObject({ name: "Robots", tier: "free", status: "active", createdBy: "alice" });
    expect(org.orgId).toMatch(/^og_/);
    expect(state.orgs).toEqual([org]);
    expect(state.memberships).toEqual([expect.objectContaining({ orgId: org.orgId, userId: "alice", roles: ["owner", "user"] })]);
  });

  test("an empty name is a 400 naming `name`, and nothing is written", async () => {
    const { uow, state } = inMemoryAdmin();
    await expect(createOrg(uow, "alice", " ")).rejects.toThrow(/\] name: must not be empty/);
    expect(state.orgs).toEqual([]);
  });
});

describe("getOrg and listOrgMembers", () => {
  const seed = () =>
    inMemoryAdmin({ orgs: [orgAt("og_1")], users: [userAt("alice"), userAt("bob")], memberships: [memberAt("og_1", "bob", ["user"], 2), memberAt("og_1", "alice", ["owner", "user"], 1)] });

  test("lists each member with its user record, the org and its roles", async () => {
    await expect(listOrgMembers(seed().uow, "og_1")).resolves.toEqual([
      { user: userAt("alice"), org: orgAt("og_1"), roles: ["owner", "user"] },
      { user: userAt("bob"), org: orgAt("og_1"), roles: ["user"] },
    ]);
  });

  test("an org that does not exist is 404 on both", async () => {
    await expect(getOrg(seed().uow, "og_9")).rejects.toMatchObject({ code: Code.NotFound });
    await expect(listOrgMembers(seed().uow, "og_9")).rejects.toMatchObject({ code: Code.NotFound });
  });
});
