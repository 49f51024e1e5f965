import { Code } from "@connectrpc/connect";
import { mintInvocationToken } from "@hangar/shared";
import { authenticateToken, resolveUser } from "./authentication";
import { inMemoryAdmin, memberAt, orgAt, userAt } from "./in-memory-repositories.fixture";
import type { TokenRecord } from "./records";
import { hashSecret } from "./tokens";

const KEY = "internal-key";
const DAY = 86_400_000;

function tokenOf(userId: string, secret: string, extra: Partial<TokenRecord> = {}): TokenRecord {
  const created = new Date(Date.now() - DAY);
  return { tokenId: `tk_${secret}`, userId, name: secret, description: null, secretHash: hashSecret(secret), apiScopes: ["files.upload"], created, expires: null, lastUsed: null, enabled: true, ...extra };
}

const seed = () =>
  inMemoryAdmin({
    orgs: [orgAt("og_1"), orgAt("og_2", 1)],
    users: [userAt("alice"), userAt("root", 0, { isSystemAdmin: true })],
    memberships: [memberAt("og_2", "alice", ["user"], 2), memberAt("og_1", "alice", ["admin", "user"], 1)],
    tokens: [
      tokenOf("alice", "good"),
      tokenOf("alice", "off", { enabled: false }),
      tokenOf("alice", "old", { expires: new Date(Date.now() - 1000) }),
      tokenOf("ghost", "orphan"),
      tokenOf("root", "rootsecret", { apiScopes: [] }),
    ],
  });

describe("authenticateToken with an API token", () => {
  test("answers the token's user, its memberships oldest first and the token's scopes, and stamps the token as used", async () => {
    const { uow, state } = seed();
    await expect(authenticateToken(uow, "good", KEY)).resolves.toEqual({
      userId: "alice",
      tokenId: "tk_good",
      isSystemAdmin: false,
      memberships: [{ orgId: "og_1", roles: ["admin", "user"] }, { orgId: "og_2", roles: ["user"] }],
      apiScopes: ["files.upload"],
      invocationId: "",
    });
    expect(state.touched).toEqual(["tk_good"]);
  });

  test("a system admin's token says so", async () => {
    await expect(authenticateToken(seed().uow, "rootsecret", KEY)).resolves.toMatchObject({ userId: "root", isSystemAdmin: true, memberships: [] });
  });

  test.each([["unknown"], ["off"], ["old"]])("a%s token is 401 and stamps nothing", async (secret) => {
    const { uow, state } = seed();
    await expect(authenticateToken(uow, secret, KEY)).rejects.toMatchObject({ code: Code.Unauthenticated, message: expect.stringMatching(/invalid, expired or revoked/) });
    expect(state.touched).toEqual([]);
  });

  test("a token whose user is gone is 401", async () => {
    await expect(authenticateToken(seed().uow, "orphan", KEY)).rejects.toMatchObject({ code: Code.Unauthenticated, message: expect.stringMatching(/user no longer exists/) });
  });
});

describe("authenticateToken with an invocation token", () => {
  const invocation = (orgId: string, key = KEY, exp = Math.floor(Date.now() / 1000) + 3600) =>
    mintInvocationToken({ orgId, userId: "alice", invocationId: "iv_1", exp }, key);

  test("acts as the invocation's user in the invocation's org only, with its invocation, no token id and no scope limit", async () => {
    const { uow, state } = seed();
    await expect(authenticateToken(uow, invocation("og_2"), KEY)).resolves.toEqual({
      userId: "alice",
      tokenId: "",
      isSystemAdmin: false,
      memberships: [{ orgId: "og_2", roles: ["user"] }],
      apiScopes: [],
      invocationId: "iv_1",
    });
    expect(state.touched).toEqual([]);
  });

  test("once the user has left the org it is 401", async () => {
    await expect(authenticateToken(seed().uow, invocation("og_3"), KEY)).rejects.toMatchObject({ code: Code.Unauthenticated, message: expect.stringMatching(/no longer a member of org 'og_3'/) });
  });

  test("a wrong signature or a lapsed token is 401", async () => {
    await expect(authenticateToken(seed().uow, invocation("og_2", "other-key"), KEY)).rejects.toMatchObject({ code: Code.Unauthenticated });
    await expect(authenticateToken(seed().uow, invocation("og_2", KEY, 1), KEY)).rejects.toMatchObject({ code: Code.Unauthenticated });
  });
});

describe("resolveUser", () => {
  test("answers the user's identity; an unknown user is 404", async () => {
    const { uow } = seed();
    await expect(resolveUser(uow, "alice")).resolves.toEqual({ userId: "alice", isSystemAdmin: false, memberships: [{ orgId: "og_1", roles: ["admin", "user"] }, { orgId: "og_2", roles: ["user"] }] });
    await expect(resolveUser(uow, "ghost")).rejects.toMatchObject({ code: Code.NotFound });
  });
});
