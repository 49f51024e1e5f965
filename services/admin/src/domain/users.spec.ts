import { Code } from "@connectrpc/connect";
import { inMemoryAdmin, memberAt, orgAt, userAt } from "./in-memory-repositories.fixture";
import { userCaller } from "./principals.fixture";
import { createUser, getCurrentUser, getUser } from "./users";

const seed = () =>
  inMemoryAdmin({
    orgs: [orgAt("og_1"), orgAt("og_2")],
    users: [userAt("alice"), userAt("erin"), userAt("gone")],
    memberships: [memberAt("og_1", "alice", ["owner", "user"]), memberAt("og_2", "erin", ["user"])],
    audit: [{ orgId: "og_1", userId: "gone", action: "removed", actor: "alice", rolesBefore: ["user"], rolesAfter: [] }],
  });
const newUser = (userId: string, orgId = "og_1") => ({ orgId, userId, name: "Name", isServiceUser: false });

describe("createUser", () => {
  test("creates the user (trimmed id) as a plain member under the org's lock and records the addition", async () => {
    const { uow, state } = seed();
    const user = await createUser(uow, "alice", newUser("  bob "));
    expect(user).toMatchObject({ userId: "bob", name: "Name", isServiceUser: false, isSystemAdmin: false, createdBy: "alice" });
    expect(state.memberships).toContainEqual(expect.objectContaining({ orgId: "og_1", userId: "bob", roles: ["user"] }));
    expect(state.locks).toEqual(["og_1"]);
    expect(state.audit.at(-1)).toEqual({ orgId: "og_1", userId: "bob", action: "added", actor: "alice", rolesBefore: [], rolesAfter: ["user"] });
  });

  test.each([
    ["  ", /user_id: must not be empty/],
    ["x".repeat(257), /user_id: must be at most 256 characters/],
    ["device:dv_1", /user_id: 'device:' is reserved for the users of devices/],
  ])("user_id %j is a 400 and nothing is written", async (userId, message) => {
    const { uow, state } = seed();
    await expect(createUser(uow, "alice", newUser(userId))).rejects.toThrow(message);
    expect(state.users).toHaveLength(3);
  });

  test("an org that does not exist is 404", async () => {
    await expect(createUser(seed().uow, "root", newUser("bob", "og_9"))).rejects.toMatchObject({ code: Code.NotFound });
  });

  test("another org's existing user is taken (409), and does not join", async () => {
    const { uow, state } = seed();
    await expect(createUser(uow, "alice", newUser("erin"))).rejects.toMatchObject({ code: Code.AlreadyExists, message: expect.stringMatching(/user 'erin' already exists/) });
    expect(state.memberships.filter((m) => m.userId === "erin")).toEqual([expect.objectContaining({ orgId: "og_2" })]);
  });

  test("an existing member is taken (409)", async () => {
    await expect(createUser(seed().uow, "alice", newUser("alice"))).rejects.toMatchObject({ code: Code.AlreadyExists });
  });

  test("a user the org removed is added back as a plain member, unchanged otherwise, and the addition recorded", async () => {
    const { uow, state } = seed();
    await expect(createUser(uow, "alice", { ...newUser("gone"), name: "Other" })).resolves.toEqual(userAt("gone"));
    expect(state.memberships).toContainEqual(expect.objectContaining({ orgId: "og_1", userId: "gone", roles: ["user"] }));
    expect(state.audit.at(-1)).toMatchObject({ userId: "gone", action: "added", actor: "alice" });
  });
});

describe("getUser and getCurrentUser", () => {
  test("a user sees itself and the users it shares an org with", async () => {
    const { uow } = seed();
    await expect(getUser(uow, userCaller("erin", { og_2: ["user"] }), "erin")).resolves.toMatchObject({ userId: "erin" });
    await expect(getUser(uow, userCaller("carl", { og_1: ["user"] }), "alice")).resolves.toMatchObject({ userId: "alice" });
  });

  test("another org's user is 404, as one that does not exist; a system admin sees every user", async () => {
    const { uow } = seed();
    await expect(getUser(uow, userCaller("alice", { og_1: ["owner", "user"] }), "erin")).rejects.toMatchObject({ code: Code.NotFound });
    await expect(getUser(uow, userCaller("root", {}, { isSystemAdmin: true }), "erin")).resolves.toMatchObject({ userId: "erin" });
    await expect(getUser(uow, userCaller("root", {}, { isSystemAdmin: true }), "nobody")).rejects.toMatchObject({ code: Code.NotFound });
  });

  test("a caller whose user was deleted is 401", async () => {
    await expect(getCurrentUser(seed().uow, "deleted")).rejects.toMatchObject({ code: Code.Unauthenticated });
    await expect(getCurrentUser(seed().uow, "alice")).resolves.toMatchObject({ userId: "alice" });
  });
});
