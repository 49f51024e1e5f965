import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { apiClient, createTenant, startTestPlatform, type ApiClient, type ApiResponse, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { expectError } from "@hangar/test-harness";

// Identity end to end, through the gateway: orgs, users, memberships and roles, API tokens, and
// how the gateway turns a token and the identity headers into the caller.

let t: TestPlatform;
let db: Client;

beforeAll(async () => {
  t = await startTestPlatform();
  db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DAY_MS = 86_400_000;

/** A user with a token, in some org. */
interface Member {
  userId: string;
  token: string;
  client: ApiClient;
}

function uniqueUserId(label: string): string {
  return `${label}-${randomBytes(3).toString("hex")}@example.com`;
}

/** Creates a user in `orgId` (as the bootstrap admin), gives it `roles` besides `user`, and a token. */
async function addMember(orgId: string, label: string, roles: string[] = []): Promise<Member> {
  const userId = uniqueUserId(label);
  const created = await t.admin.post("/v1/users", { user_id: userId, org_id: orgId });
  if (created.status !== 200) throw new Error(`create user failed: ${JSON.stringify(created.body)}`);
  if (roles.length > 0) {
    const granted = await t.admin.put(`/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(userId)}`, { add_roles: roles });
    if (granted.status !== 200) throw new Error(`grant roles failed: ${JSON.stringify(granted.body)}`);
  }
  const token = await createToken(t.admin, { "X-Service-User-Id": userId });
  return { userId, token, client: apiClient(t.url, token) };
}

async function createToken(client: ApiClient, headers: Record<string, string> = {}): Promise<string> {
  const res = await client.post("/v1/tokens", { name: "test", expiry_days: 1 }, headers);
  if (res.status !== 200) throw new Error(`create token failed: ${JSON.stringify(res.body)}`);
  return res.body.data.secret;
}

/** Creates an org with `owner` as its only owner (the caller of create_org). */
async function createOrg(owner: ApiClient, name: string): Promise<string> {
  const res = await owner.post("/v1/orgs", { name });
  if (res.status !== 200) throw new Error(`create org failed: ${JSON.stringify(res.body)}`);
  return res.body.data.org_id;
}

async function rolesOf(orgId: string, userId: string): Promise<string[] | undefined> {
  const res = await t.admin.get(`/v1/orgs/id/${orgId}/users`);
  return (res.body.data as { user: { user_id: string }; roles: string[] }[]).find((m) => m.user.user_id === userId)?.roles;
}

async function whoami(client: ApiClient, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return client.get("/v1/users/whoami", headers);
}

describe("organizations", () => {
  let carol: TestTenant;
  let bob: TestTenant;

  beforeAll(async () => {
    carol = await createTenant(t, "carol");
    bob = await createTenant(t, "bob");
  });

  test("create_org returns the org record", async () => {
    const res = await carol.client.post("/v1/orgs", { name: "carol-lab" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        org_id: expect.stringMatching(/^og_[0-9a-z]{20}$/),
        name: "carol-lab",
        tier: "free",
        status: "active",
        created: expect.stringMatching(ISO_MS),
        created_by: carol.userId,
      },
    });
  });

  test("create_org makes the caller the org's only member, as owner", async () => {
    const orgId = await createOrg(carol.client, "carol-owned");
    const res = await carol.client.get(`/v1/orgs/id/${orgId}/users`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        user: expect.objectContaining({ user_id: carol.userId }),
        org: expect.objectContaining({ org_id: orgId, name: "carol-owned" }),
        roles: ["owner", "user"],
      },
    ]);
  });

  test("create_org without a name is a 400 naming the field", async () => {
    expectError(await carol.client.post("/v1/orgs", {}), 400, "name: is required");
  });

  test("create_org with a blank name is a 400 naming the field", async () => {
    expectError(await carol.client.post("/v1/orgs", { name: "   " }), 400, "name: must not be empty");
  });

  test("list_my_orgs lists exactly the caller's orgs, oldest first", async () => {
    const dave = await createTenant(t, "dave");
    const second = await createOrg(dave.client, "dave-second");
    const res = await dave.client.get("/v1/orgs/caller");
    expect(res.status).toBe(200);
    expect(res.body.data.map((o: { org_id: string }) => o.org_id)).toEqual([dave.orgId, second]);
  });

  test("get_org returns the org to a member", async () => {
    const res = await carol.client.get(`/v1/orgs/id/${carol.orgId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      org_id: carol.orgId,
      name: "carol",
      tier: "free",
      status: "active",
      created: expect.stringMatching(ISO_MS),
      created_by: "admin",
    });
  });

  test("get_org is a 404 for a caller who is not a member", async () => {
    expectError(await bob.client.get(`/v1/orgs/id/${carol.orgId}`), 404, `org '${carol.orgId}' not found`);
  });

  test("get_org of an unknown org is a 404", async () => {
    expectError(await carol.client.get("/v1/orgs/id/og_doesnotexist"), 404, "org 'og_doesnotexist' not found");
  });

  test("list_org_users lists every member with their roles", async () => {
    const res = await carol.client.get(`/v1/orgs/id/${carol.orgId}/users`);
    expect(res.status).toBe(200);
    const members = res.body.data.map((m: { user: { user_id: string }; roles: string[] }) => [m.user.user_id, m.roles]);
    expect(members).toEqual([
      ["admin", ["owner", "user"]],
      [carol.userId, ["user"]],
    ]);
  });

  test("list_org_users is a 404 for a caller who is not a member", async () => {
    expectError(await bob.client.get(`/v1/orgs/id/${carol.orgId}/users`), 404, `org '${carol.orgId}' not found`);
  });

  test("get_org_usage counts the org's datasets", async () => {
    const erin = await createTenant(t, "erin");
    for (const name of ["u1", "u2"]) expect((await erin.client.post("/v1/datasets", { name })).status).toBe(200);
    const expected = [{ resource_name: "datasets::total_count", quantity: 2, principal: { id: erin.orgId, scope: "org" } }];
    let usage: unknown;
    for (let i = 0; i < 50; i++) {
      usage = (await erin.client.get(`/v1/orgs/id/${erin.orgId}/usage`)).body.data;
      if (JSON.stringify(usage) === JSON.stringify(expected)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(usage).toEqual(expected);
  });

  test("get_org_usage is a 404 for a caller who is not a member", async () => {
    expectError(await bob.client.get(`/v1/orgs/id/${carol.orgId}/usage`), 404, `org '${carol.orgId}' not found`);
  });
});

describe("update_org_user_roles", () => {
  let orgId: string;
  let owner: Member;

  beforeAll(async () => {
    const founder = await addMember((await createTenant(t, "roles")).orgId, "founder");
    orgId = await createOrg(founder.client, "roles-org");
    owner = founder;
  });

  test("an owner grants a member the admin role; the answer is data: null", async () => {
    const member = await addMember(orgId, "promoted");
    const res = await owner.client.put(`/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(member.userId)}`, { add_roles: ["admin"] }, { "X-Service-Org-Id": orgId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: null });
    expect(await rolesOf(orgId, member.userId)).toEqual(["admin", "user"]);
  });

  test("an admin removes a role", async () => {
    const admin = await addMember(orgId, "org-admin", ["admin"]);
    const member = await addMember(orgId, "demoted", ["admin"]);
    const res = await admin.client.put(`/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(member.userId)}`, { remove_roles: ["admin"] }, { "X-Service-Org-Id": orgId });
    expect(res.status).toBe(200);
    expect(await rolesOf(orgId, member.userId)).toEqual(["user"]);
  });

  test("the user id may arrive quote_plus-encoded, as the SDK sends it (a%2Bb%40x.com)", async () => {
    const userId = `ops+${randomBytes(3).toString("hex")}@example.com`;
    expect((await t.admin.post("/v1/users", { user_id: userId, org_id: orgId })).status).toBe(200);
    const encoded = userId.replace("+", "%2B").replace("@", "%40");
    const res = await owner.client.put(`/v1/orgs/id/${orgId}/users/id/${encoded}`, { add_roles: ["admin"], remove_roles: null }, { "X-Service-Org-Id": orgId });
    expect(res.status).toBe(200);
    expect(await rolesOf(orgId, userId)).toEqual(["admin", "user"]);
  });

  test("`member` is read as the plain member role, `user`", async () => {
    const member = await addMember(orgId, "aliased", ["admin"]);
    const res = await owner.client.put(`/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(member.userId)}`, { remove_roles: ["admin"], add_roles: ["member"] }, { "X-Service-Org-Id": orgId });
    expect(res.status).toBe(200);
    expect(await rolesOf(orgId, member.userId)).toEqual(["user"]);
  });

  test("an unknown role is a 400 naming add_roles[i], and nothing changes", async () => {
    const member = await addMember(orgId, "unchanged");
    const res = await owner.client.put(`/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(member.userId)}`, { add_roles: ["admin", "boss"] });
    expectError(res, 400, "add_roles[1]: unknown role 'boss'; expected one of owner, admin, user");
    expect(await rolesOf(orgId, member.userId)).toEqual(["user"]);
  });

  test("a member without the owner or admin role is refused with a 401", async () => {
    const member = await addMember(orgId, "plain");
    const other = await addMember(orgId, "target");
    const res = await member.client.put(`/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(other.userId)}`, { add_roles: ["admin"] });
    expectError(res, 401, `administering org '${orgId}' needs the owner or admin role`);
    expect(await rolesOf(orgId, other.userId)).toEqual(["user"]);
  });

  test("a caller who is not a member of the org gets a 404", async () => {
    const outsider = await createTenant(t, "outsider");
    const res = await outsider.client.put(`/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(owner.userId)}`, { add_roles: ["admin"] });
    expectError(res, 404, `org '${orgId}' not found`);
  });

  test("a user who is not a member of the org is a 404", async () => {
    const res = await owner.client.put(`/v1/orgs/id/${orgId}/users/id/nobody%40example.com`, { add_roles: ["admin"] });
    expectError(res, 404, "org member 'nobody@example.com' not found");
  });

  test("the last owner cannot give up the owner role: 409", async () => {
    const soloOrg = await createOrg(owner.client, "solo");
    const res = await owner.client.put(`/v1/orgs/id/${soloOrg}/users/id/${encodeURIComponent(owner.userId)}`, { remove_roles: ["owner"] }, { "X-Service-Org-Id": soloOrg });
    expectError(res, 409, `org '${soloOrg}' must keep at least one owner`);
    expect(await rolesOf(soloOrg, owner.userId)).toEqual(["owner", "user"]);
  });

  test("an owner may give up the owner role while another owner remains", async () => {
    const pairOrg = await createOrg(owner.client, "pair");
    const second = await addMember(pairOrg, "second-owner", ["owner"]);
    const res = await owner.client.put(`/v1/orgs/id/${pairOrg}/users/id/${encodeURIComponent(owner.userId)}`, { remove_roles: ["owner"] });
    expect(res.status).toBe(200);
    expect(await rolesOf(pairOrg, owner.userId)).toEqual(["user"]);
    expect(await rolesOf(pairOrg, second.userId)).toEqual(["owner", "user"]);
  });
});

describe("remove_org_user", () => {
  let orgId: string;
  let owner: Member;

  beforeAll(async () => {
    owner = await addMember((await createTenant(t, "removal")).orgId, "remover");
    orgId = await createOrg(owner.client, "removal-org");
  });

  test("an owner removes a member; the answer is data: null and the member loses access", async () => {
    const member = await addMember(orgId, "leaver");
    const res = await owner.client.delete(`/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(member.userId)}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: null });
    expect(await rolesOf(orgId, member.userId)).toBeUndefined();
    expect((await member.client.get(`/v1/orgs/id/${orgId}`)).status).toBe(404);
  });

  test("a member cannot remove another member: 401", async () => {
    const member = await addMember(orgId, "member");
    const other = await addMember(orgId, "other");
    const res = await member.client.delete(`/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(other.userId)}`);
    expectError(res, 401, `administering org '${orgId}' needs the owner or admin role`);
    expect(await rolesOf(orgId, other.userId)).toEqual(["user"]);
  });

  test("a member may leave the org", async () => {
    const member = await addMember(orgId, "quitter");
    const res = await member.client.delete(`/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(member.userId)}`);
    expect(res.status).toBe(200);
    expect(await rolesOf(orgId, member.userId)).toBeUndefined();
  });

  test("the last owner cannot be removed: 409", async () => {
    const res = await owner.client.delete(`/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(owner.userId)}`);
    expectError(res, 409, `org '${orgId}' must keep at least one owner`);
    expect(await rolesOf(orgId, owner.userId)).toEqual(["owner", "user"]);
  });

  test("removing a user who is not a member is a 404", async () => {
    const res = await owner.client.delete(`/v1/orgs/id/${orgId}/users/id/ghost%40example.com`);
    expectError(res, 404, "org member 'ghost@example.com' not found");
  });
});

describe("membership rules (issue 9, finding 7)", () => {
  let orgId: string;
  let owner: Member;
  let admin: Member;

  beforeEach(async () => {
    owner = await addMember((await createTenant(t, "rules")).orgId, "rules-owner");
    orgId = await createOrg(owner.client, "rules-org");
    admin = await addMember(orgId, "rules-admin", ["admin"]);
  });

  const userPath = (userId: string) => `/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(userId)}`;
  const auditOf = async (userId: string) =>
    (await db.query("select action, actor, roles_before, roles_after, at from admin.membership_audit where org_id = $1 and user_id = $2 order by audit_id", [orgId, userId])).rows;

  test("an admin cannot make itself owner: 403, roles unchanged", async () => {
    const res = await admin.client.put(userPath(admin.userId), { add_roles: ["owner"] }, { "X-Service-Org-Id": orgId });
    expectError(res, 403, `granting or removing the owner role in org '${orgId}' needs the owner role`);
    expect(await rolesOf(orgId, admin.userId)).toEqual(["admin", "user"]);
  });

  test("an admin cannot take the owner role from an owner, nor remove an owner: 403", async () => {
    const demote = await admin.client.put(userPath(owner.userId), { remove_roles: ["owner"] }, { "X-Service-Org-Id": orgId });
    expectError(demote, 403, `granting or removing the owner role in org '${orgId}' needs the owner role`);
    const remove = await admin.client.delete(userPath(owner.userId), undefined, { "X-Service-Org-Id": orgId });
    expectError(remove, 403, `granting or removing the owner role in org '${orgId}' needs the owner role`);
    expect(await rolesOf(orgId, owner.userId)).toEqual(["owner", "user"]);
    expect((await auditOf(owner.userId)).map((r) => r.action)).toEqual([]);
  });

  test("an owner grants owner; then the first owner may leave, and the last one may not: 409", async () => {
    const granted = await owner.client.put(userPath(admin.userId), { add_roles: ["owner"] }, { "X-Service-Org-Id": orgId });
    expect(granted.status).toBe(200);
    expect(await rolesOf(orgId, admin.userId)).toEqual(["owner", "admin", "user"]);
    expect((await owner.client.delete(userPath(owner.userId), undefined, { "X-Service-Org-Id": orgId })).status).toBe(200);
    const last = await admin.client.delete(userPath(admin.userId), undefined, { "X-Service-Org-Id": orgId });
    expectError(last, 409, `org '${orgId}' must keep at least one owner`);
    expect(await rolesOf(orgId, admin.userId)).toEqual(["owner", "admin", "user"]);
  });

  test("a removed member's token is refused with 403, not 400", async () => {
    const member = await addMember(orgId, "only-here");
    expect((await member.client.post("/v1/datasets/query", {})).status).toBe(200);
    expect((await owner.client.delete(userPath(member.userId), undefined, { "X-Service-Org-Id": orgId })).status).toBe(200);
    expectError(await member.client.post("/v1/datasets/query", {}), 403, "the caller belongs to no org");
    expectError(await member.client.post("/v1/datasets", { name: "after-removal" }), 403, "the caller belongs to no org");
    expect((await member.client.post("/v1/datasets/query", {}, { "X-Service-Org-Id": orgId })).status).toBe(401);
  });

  test("a removed user can be added back, and its token works there again", async () => {
    const member = await addMember(orgId, "returning");
    expect((await owner.client.delete(userPath(member.userId), undefined, { "X-Service-Org-Id": orgId })).status).toBe(200);
    const back = await owner.client.post("/v1/users", { user_id: member.userId, org_id: orgId });
    expect(back.status).toBe(200);
    expect(back.body.data.user_id).toBe(member.userId);
    expect(await rolesOf(orgId, member.userId)).toEqual(["user"]);
    expect((await member.client.post("/v1/datasets/query", {})).status).toBe(200);
    expectError(await owner.client.post("/v1/users", { user_id: member.userId, org_id: orgId }), 409, `user '${member.userId}' already exists`);
    expect((await auditOf(member.userId)).map((r) => [r.action, r.actor])).toEqual([
      ["added", "admin"],
      ["removed", owner.userId],
      ["added", owner.userId],
    ]);
  });

  test("adding an existing user the org never had is still a 409", async () => {
    const stranger = await createTenant(t, "not-ours");
    expectError(await owner.client.post("/v1/users", { user_id: stranger.userId, org_id: orgId }), 409, `user '${stranger.userId}' already exists`);
    expect(await rolesOf(orgId, stranger.userId)).toBeUndefined();
  });

  test("DELETE of a member is idempotent and audited once, with who, whom, the roles and when", async () => {
    const member = await addMember(orgId, "twice");
    const first = await admin.client.delete(`${userPath(member.userId)}?unknown=1`, undefined, { "X-Service-Org-Id": orgId });
    const second = await admin.client.delete(userPath(member.userId), undefined, { "X-Service-Org-Id": orgId });
    expect([first.status, first.body, second.status, second.body]).toEqual([200, { data: null }, 200, { data: null }]);
    expect(await rolesOf(orgId, member.userId)).toBeUndefined();
    const rows = (await auditOf(member.userId)).filter((r) => r.action === "removed");
    expect(rows).toEqual([{ action: "removed", actor: admin.userId, roles_before: ["user"], roles_after: [], at: expect.any(Date) }]);
  });

  test("a role change is audited with the roles before and after", async () => {
    const member = await addMember(orgId, "promoted");
    expect((await owner.client.put(userPath(member.userId), { add_roles: ["admin"] }, { "X-Service-Org-Id": orgId })).status).toBe(200);
    expect((await auditOf(member.userId)).map((r) => [r.action, r.actor, r.roles_before, r.roles_after])).toEqual([
      ["added", "admin", [], ["user"]],
      ["roles", owner.userId, ["user"], ["admin", "user"]],
    ]);
  });
});

describe("users", () => {
  let orgId: string;
  let owner: Member;
  let member: Member;

  beforeAll(async () => {
    owner = await addMember((await createTenant(t, "people")).orgId, "people-owner");
    orgId = await createOrg(owner.client, "people-org");
    member = await addMember(orgId, "people-member");
  });

  test("an owner creates a user in the caller's org; the user is a member there", async () => {
    const userId = uniqueUserId("new");
    const res = await owner.client.post("/v1/users", { user_id: userId, name: "New Person" }, { "X-Service-Org-Id": orgId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { user_id: userId, name: "New Person", is_service_user: false, is_system_admin: false, created: expect.stringMatching(ISO_MS), created_by: owner.userId },
    });
    expect(await rolesOf(orgId, userId)).toEqual(["user"]);
  });

  test("create_user joins the org named in the body's org_id", async () => {
    const userId = uniqueUserId("by-body");
    const res = await owner.client.post("/v1/users", { user_id: userId, org_id: orgId, is_service_user: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(expect.objectContaining({ user_id: userId, name: null, is_service_user: true }));
    expect(await rolesOf(orgId, userId)).toEqual(["user"]);
  });

  test("creating an existing user is a 409", async () => {
    const res = await owner.client.post("/v1/users", { user_id: member.userId, org_id: orgId });
    expectError(res, 409, `user '${member.userId}' already exists`);
  });

  test("a member without the owner or admin role cannot create users: 401", async () => {
    const userId = uniqueUserId("refused");
    const res = await member.client.post("/v1/users", { user_id: userId, org_id: orgId });
    expectError(res, 401, `administering org '${orgId}' needs the owner or admin role`);
    expect((await t.admin.get(`/v1/users/id/${encodeURIComponent(userId)}`)).status).toBe(404);
  });

  test("create_user in an org the caller does not belong to is a 404", async () => {
    const other = await createTenant(t, "elsewhere");
    const res = await owner.client.post("/v1/users", { user_id: uniqueUserId("x"), org_id: other.orgId });
    expectError(res, 404, `org '${other.orgId}' not found`);
  });

  test("create_user in an org that does not exist is a 404, even for a system admin", async () => {
    const res = await t.admin.post("/v1/users", { user_id: uniqueUserId("orphan"), org_id: "og_doesnotexist" });
    expectError(res, 404, "org 'og_doesnotexist' not found");
  });

  test("create_user by a caller in several orgs, without an org, asks for X-Service-Org-Id: 400", async () => {
    const res = await owner.client.post("/v1/users", { user_id: uniqueUserId("ambiguous") });
    expectError(res, 400, /X-Service-Org-Id/);
  });

  test("GET /v1/users/whoami returns the calling user", async () => {
    const res = await whoami(member.client);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { user_id: member.userId, name: null, is_service_user: false, is_system_admin: false, created: expect.stringMatching(ISO_MS), created_by: "admin" },
    });
  });

  test("GET /v1/users returns the calling user too", async () => {
    const res = await member.client.get("/v1/users");
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await whoami(member.client)).body);
  });

  test("get_user returns a user who shares an org with the caller", async () => {
    const res = await member.client.get(`/v1/users/id/${encodeURIComponent(owner.userId)}`);
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe(owner.userId);
  });

  test("get_user of a user who shares no org with the caller is a 404", async () => {
    const stranger = await createTenant(t, "stranger");
    const res = await member.client.get(`/v1/users/id/${encodeURIComponent(stranger.userId)}`);
    expectError(res, 404, `user '${stranger.userId}' not found`);
  });

  test("list_user_orgs lists the caller's own orgs", async () => {
    const res = await owner.client.get(`/v1/users/id/${encodeURIComponent(owner.userId)}/orgs`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((o: { org_id: string }) => o.org_id)).toHaveLength(2);
    expect(res.body.data.map((o: { org_id: string }) => o.org_id)).toContain(orgId);
  });

  test("list_user_orgs of another user is a 404 for a normal user", async () => {
    const res = await member.client.get(`/v1/users/id/${encodeURIComponent(owner.userId)}/orgs`);
    expectError(res, 404, `user '${owner.userId}' not found`);
  });

  test("list_user_orgs of another user is allowed to a system admin", async () => {
    const res = await t.admin.get(`/v1/users/id/${encodeURIComponent(member.userId)}/orgs`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((o: { org_id: string }) => o.org_id)).toEqual([orgId]);
  });
});

describe("API tokens", () => {
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await createTenant(t, "tokens");
  });

  test("create_api_token returns the secret, the user id and the token record", async () => {
    const res = await tenant.client.post("/v1/tokens", { name: "ci", expiry_days: 30, description: "for CI" });
    expect(res.status).toBe(200);
    const { secret, user_id, context } = res.body.data;
    expect(Object.keys(res.body.data)).toEqual(["secret", "user_id", "context"]);
    expect(secret).toEqual(expect.stringMatching(/^\S{32,}$/));
    expect(user_id).toBe(tenant.userId);
    expect(context).toEqual({
      token_id: expect.stringMatching(/^tk_/),
      user_id: tenant.userId,
      name: "ci",
      description: "for CI",
      created: expect.stringMatching(ISO_MS),
      expires: expect.stringMatching(ISO_MS),
      last_used: null,
      enabled: true,
      api_scopes: [],
    });
  });

  test("api_scopes given at creation are kept in the token record", async () => {
    const res = await tenant.client.post("/v1/tokens", { name: "uploader", expiry_days: 1, api_scopes: ["files.upload", "datasets.create"] });
    expect(res.body.data.context.api_scopes).toEqual(["files.upload", "datasets.create"]);
  });
  test("an api_scope the client SDK does not know is a 400 naming it, and no token is made", async () => {
    const before = (await tenant.client.get("/v1/tokens")).body.data.length;
    const res = await tenant.client.post("/v1/tokens", { name: "odd", expiry_days: 1, api_scopes: ["files.upload", "everything"] });
    expectError(res, 400, /^api_scopes\[1\]: unknown scope 'everything'; expected one of /);
    expect((await tenant.client.get("/v1/tokens")).body.data).toHaveLength(before);
  });


  test("a token expires exactly expiry_days after its creation", async () => {
    const { context } = (await tenant.client.post("/v1/tokens", { name: "week", expiry_days: 7 })).body.data;
    expect(Date.parse(context.expires) - Date.parse(context.created)).toBe(7 * DAY_MS);
  });

  test("the new secret authenticates as the token's user", async () => {
    const secret = await createToken(tenant.client);
    const res = await whoami(apiClient(t.url, secret));
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe(tenant.userId);
  });

  test("expiry_days of 0 or 3651 is a 400 naming the field; 1 and 3650 are accepted", async () => {
    for (const days of [0, 3651, -1]) {
      expectError(await tenant.client.post("/v1/tokens", { name: "bad", expiry_days: days }), 400, "expiry_days: must be from 1 to 3650");
    }
    for (const days of [1, 3650]) expect((await tenant.client.post("/v1/tokens", { name: "ok", expiry_days: days })).status).toBe(200);
  });

  test("expiry_days is required", async () => {
    expectError(await tenant.client.post("/v1/tokens", { name: "forever" }), 400, "expiry_days: is required");
  });

  test("list_api_tokens lists the caller's tokens, oldest first, as create_api_token answers but without secrets", async () => {
    const user = await addMember(tenant.orgId, "lister");
    const second = await user.client.post("/v1/tokens", { name: "second", expiry_days: 2 });
    const res = await user.client.get("/v1/tokens");
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { context: { name: string } }) => r.context.name)).toEqual(["test", "second"]);
    expect(res.body.data[1]).toEqual({ ...second.body.data, secret: null });
    expect(JSON.stringify(res.body)).not.toContain(user.token);
    expect(JSON.stringify(res.body)).not.toContain(second.body.data.secret);
  });

  test("get_api_token reads one of the caller's tokens, with last_used set once it was used", async () => {
    const user = await addMember(tenant.orgId, "getter");
    const tokenId = (await user.client.get("/v1/tokens")).body.data[0].context.token_id;
    const res = await user.client.get(`/v1/tokens/id/${tokenId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      secret: null,
      user_id: user.userId,
      context: expect.objectContaining({ token_id: tokenId, user_id: user.userId, last_used: expect.stringMatching(ISO_MS) }),
    });
  });

  test("another user's token is a 404 on get, disable, enable and delete", async () => {
    const owner = await addMember(tenant.orgId, "token-owner");
    const tokenId = (await owner.client.get("/v1/tokens")).body.data[0].context.token_id;
    const message = `API token '${tokenId}' not found`;
    expectError(await tenant.client.get(`/v1/tokens/id/${tokenId}`), 404, message);
    expectError(await tenant.client.post(`/v1/tokens/id/${tokenId}/disable`), 404, message);
    expectError(await tenant.client.post(`/v1/tokens/id/${tokenId}/enable`), 404, message);
    expectError(await tenant.client.delete(`/v1/tokens/id/${tokenId}`), 404, message);
    expect((await whoami(owner.client)).status).toBe(200);
  });

  test("a disabled token is refused with a 401 at once", async () => {
    const user = await addMember(tenant.orgId, "disabled");
    const spare = apiClient(t.url, await createToken(user.client));
    const tokenId = (await user.client.get("/v1/tokens")).body.data[0].context.token_id;
    const res = await spare.post(`/v1/tokens/id/${tokenId}/disable`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ secret: null, user_id: user.userId, context: expect.objectContaining({ token_id: tokenId, enabled: false }) });
    expectError(await whoami(user.client), 401, "invalid, expired or revoked API token");
  });

  test("enabling a disabled token makes it work again", async () => {
    const user = await addMember(tenant.orgId, "reenabled");
    const spare = apiClient(t.url, await createToken(user.client));
    const tokenId = (await user.client.get("/v1/tokens")).body.data[0].context.token_id;
    await spare.post(`/v1/tokens/id/${tokenId}/disable`);
    const res = await spare.post(`/v1/tokens/id/${tokenId}/enable`);
    expect(res.status).toBe(200);
    expect(res.body.data.context.enabled).toBe(true);
    expect((await whoami(user.client)).status).toBe(200);
  });

  test("delete_api_token answers data: null, and the token is refused with a 401 at once", async () => {
    const user = await addMember(tenant.orgId, "deleted");
    const tokenId = (await user.client.get("/v1/tokens")).body.data[0].context.token_id;
    const res = await user.client.delete(`/v1/tokens/id/${tokenId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: null });
    expectError(await whoami(user.client), 401, "invalid, expired or revoked API token");
  });

  test("an expired token is refused with a 401", async () => {
    const user = await addMember(tenant.orgId, "expired");
    const tokenId = (await user.client.get("/v1/tokens")).body.data[0].context.token_id;
    const updated = await db.query("update admin.api_tokens set expires = now() - interval '1 second' where token_id = $1", [tokenId]);
    expect(updated.rowCount).toBe(1);
    expectError(await whoami(user.client), 401, "invalid, expired or revoked API token");
  });

  test("the admin schema stores no token secret", async () => {
    const res = await tenant.client.post("/v1/tokens", { name: "stored", expiry_days: 1 });
    const { secret, context } = res.body.data;
    const rows = (await db.query("select * from admin.api_tokens where token_id = $1", [context.token_id])).rows;
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice(4, 24));
  });
});

describe("authentication and identity headers", () => {
  let alice: TestTenant;
  let bob: TestTenant;
  let multi: Member;
  let secondOrg: string;

  beforeAll(async () => {
    alice = await createTenant(t, "alice");
    bob = await createTenant(t, "bob");
    multi = await addMember(alice.orgId, "multi");
    secondOrg = await createOrg(multi.client, "multi-second");
  });

  test("a request without Authorization is a 401", async () => {
    expectError(await apiClient(t.url).get("/v1/users/whoami"), 401, "missing 'Authorization: Bearer <API token>' header");
  });

  test("an unknown token is a 401", async () => {
    expectError(await whoami(apiClient(t.url, "hgr_not-a-real-token")), 401, "invalid, expired or revoked API token");
  });

  test("a scheme other than Bearer is a 401", async () => {
    const res = await apiClient(t.url).get("/v1/users/whoami", { authorization: `Basic ${alice.token}` });
    expect(res.status).toBe(401);
  });

  test("every operation needs the token, creates included", async () => {
    const anonymous = apiClient(t.url);
    for (const res of [await anonymous.post("/v1/orgs", { name: "x" }), await anonymous.post("/v1/tokens", { name: "x", expiry_days: 1 }), await anonymous.get("/v1/orgs/caller")]) {
      expect(res.status).toBe(401);
    }
  });

  test("X-Service-Org-Id naming an org the caller is not a member of is a 401", async () => {
    expectError(await whoami(alice.client, { "X-Service-Org-Id": bob.orgId }), 401, `not a member of org '${bob.orgId}'`);
  });

  test("X-Roboto-Org-Id is an alias: a foreign org there is a 401 too", async () => {
    expectError(await whoami(alice.client, { "X-Roboto-Org-Id": bob.orgId }), 401, `not a member of org '${bob.orgId}'`);
  });

  test("a caller with one org needs no org header: creates land in that org", async () => {
    const res = await alice.client.post("/v1/datasets", { name: "implicit-org" });
    expect(res.status).toBe(200);
    expect(res.body.data.org_id).toBe(alice.orgId);
  });

  test("a caller in several orgs must name one for an org-scoped create: 400", async () => {
    expectError(await multi.client.post("/v1/datasets", { name: "which-org" }), 400, /X-Service-Org-Id/);
  });

  test("X-Service-Org-Id picks the org of a caller in several orgs", async () => {
    const res = await multi.client.post("/v1/datasets", { name: "second" }, { "X-Service-Org-Id": secondOrg });
    expect(res.status).toBe(200);
    expect(res.body.data.org_id).toBe(secondOrg);
  });

  test("X-Roboto-Org-Id picks the org the same way", async () => {
    const res = await multi.client.post("/v1/datasets", { name: "second-alias" }, { "X-Roboto-Org-Id": secondOrg });
    expect(res.status).toBe(200);
    expect(res.body.data.org_id).toBe(secondOrg);
  });

  test("X-Service-User-Id naming another user is a 401 for a caller who is not a system admin", async () => {
    expectError(await whoami(alice.client, { "X-Service-User-Id": bob.userId }), 401, "only a system admin may act as another user (X-Service-User-Id)");
  });

  test("X-Roboto-User-Id is an alias: another user there is a 401 too", async () => {
    expect((await whoami(alice.client, { "X-Roboto-User-Id": bob.userId })).status).toBe(401);
  });

  test("X-Service-User-Id naming the caller is allowed", async () => {
    const res = await whoami(alice.client, { "X-Service-User-Id": alice.userId });
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe(alice.userId);
  });

  test("a system admin acts as another user with X-Service-User-Id, in that user's org", async () => {
    expect((await whoami(t.admin, { "X-Service-User-Id": bob.userId })).body.data.user_id).toBe(bob.userId);
    const created = await t.admin.post("/v1/datasets", { name: "on-behalf" }, { "X-Service-User-Id": bob.userId });
    expect(created.status).toBe(200);
    expect(created.body.data).toEqual(expect.objectContaining({ org_id: bob.orgId, created_by: bob.userId }));
  });

  test("a system admin acts as another user with X-Roboto-User-Id", async () => {
    const res = await whoami(t.admin, { "X-Roboto-User-Id": bob.userId });
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe(bob.userId);
  });

  test("acting as an unknown user is a 401", async () => {
    expectError(await whoami(t.admin, { "X-Service-User-Id": "nobody@example.com" }), 401, "unknown user 'nobody@example.com' in X-Service-User-Id");
  });

  test("X-Service-Resource-Owner-Id reads a resource of another org the caller belongs to", async () => {
    const ds = (await multi.client.post("/v1/datasets", { name: "owned" }, { "X-Service-Org-Id": secondOrg })).body.data;
    const headers = { "X-Service-Org-Id": alice.orgId };
    expect((await multi.client.get(`/v1/datasets/${ds.dataset_id}`, headers)).status).toBe(404);
    const res = await multi.client.get(`/v1/datasets/${ds.dataset_id}`, { ...headers, "X-Service-Resource-Owner-Id": secondOrg });
    expect(res.status).toBe(200);
    expect(res.body.data.dataset_id).toBe(ds.dataset_id);
  });

  test("without an org header, a caller in several orgs acts in the org X-Service-Resource-Owner-Id names, when a member of it", async () => {
    const ds = (await multi.client.post("/v1/datasets", { name: "owner-only" }, { "X-Service-Org-Id": secondOrg })).body.data;
    const edited = await multi.client.put(`/v1/datasets/${ds.dataset_id}`, { description: "edited" }, { "X-Roboto-Resource-Owner-Id": secondOrg });
    expect(edited.status).toBe(200);
    expect(edited.body.data).toEqual(expect.objectContaining({ org_id: secondOrg, description: "edited" }));
    const foreign = await multi.client.put(`/v1/datasets/${ds.dataset_id}`, { description: "x" }, { "X-Service-Resource-Owner-Id": bob.orgId });
    expectError(foreign, 404, `dataset '${ds.dataset_id}' not found`);
  });

  test("X-Roboto-Resource-Owner-Id is an alias of X-Service-Resource-Owner-Id", async () => {
    const ds = (await multi.client.post("/v1/datasets", { name: "owned-alias" }, { "X-Service-Org-Id": secondOrg })).body.data;
    const res = await multi.client.get(`/v1/datasets/${ds.dataset_id}`, { "X-Roboto-Org-Id": alice.orgId, "X-Roboto-Resource-Owner-Id": secondOrg });
    expect(res.status).toBe(200);
    expect(res.body.data.dataset_id).toBe(ds.dataset_id);
  });

  test("X-Service-Resource-Owner-Id naming an org the caller is not in finds nothing", async () => {
    const ds = (await bob.client.post("/v1/datasets", { name: "bobs" })).body.data;
    const res = await alice.client.get(`/v1/datasets/${ds.dataset_id}`, { "X-Service-Resource-Owner-Id": bob.orgId });
    expectError(res, 404, `dataset '${ds.dataset_id}' not found`);
  });
});
