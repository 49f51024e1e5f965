import { Code } from "@connectrpc/connect";
import { createApiToken, deleteApiToken, getApiToken, mintToken, setApiTokenEnabled } from "./api-tokens";
import { inMemoryAdmin, userAt } from "./in-memory-repositories.fixture";
import { userCaller } from "./principals.fixture";
import { hashSecret } from "./tokens";

const request = { name: "  ci  ", expiryDays: 30n, apiScopes: ["files.upload", "files.upload"] };

describe("mintToken", () => {
  test("an enabled token of the user, trimmed name, expiring after `expiry_days`, scopes once each; the secret's hash is stored", () => {
    const { token, secret } = mintToken("alice", { ...request, description: "from CI" });
    expect(token).toMatchObject({ userId: "alice", name: "ci", description: "from CI", apiScopes: ["files.upload"], enabled: true, lastUsed: null, secretHash: hashSecret(secret) });
    expect(token.tokenId).toMatch(/^tk_/);
    expect(token.expires!.getTime() - token.created.getTime()).toBe(30 * 86_400_000);
  });

  test("no description is null", () => {
    expect(mintToken("alice", request).token.description).toBeNull();
  });

  test("checks name, then expiry_days, then api_scopes", () => {
    expect(() => mintToken("alice", { name: " ", expiryDays: 0n, apiScopes: ["x"] })).toThrow(/\] name: must not be empty/);
    expect(() => mintToken("alice", { name: "n", expiryDays: 0n, apiScopes: ["x"] })).toThrow(/\] expiry_days: /);
    expect(() => mintToken("alice", { name: "n", expiryDays: 1n, apiScopes: ["x"] })).toThrow(/\] api_scopes\[0\]: /);
    expect(() => mintToken("alice", { name: "n".repeat(257), expiryDays: 1n, apiScopes: [] })).toThrow(/\] name: must be at most 256 characters/);
  });
});

describe("a user's own tokens", () => {
  const seeded = async () => {
    const admin = inMemoryAdmin({ users: [userAt("alice"), userAt("bob")] });
    const { token } = await createApiToken(admin.uow, "alice", request);
    return { ...admin, tokenId: token.tokenId };
  };
  const alice = userCaller("alice");
  const bob = userCaller("bob");

  test("createApiToken stores the minted token", async () => {
    const { state, tokenId } = await seeded();
    expect(state.tokens.map((t) => t.tokenId)).toEqual([tokenId]);
  });

  test("its owner and a system admin see it; anyone else gets 404, as for a missing token", async () => {
    const { uow, tokenId } = await seeded();
    await expect(getApiToken(uow, alice, tokenId)).resolves.toMatchObject({ tokenId });
    await expect(getApiToken(uow, userCaller("root", {}, { isSystemAdmin: true }), tokenId)).resolves.toMatchObject({ tokenId });
    await expect(getApiToken(uow, bob, tokenId)).rejects.toMatchObject({ code: Code.NotFound });
    await expect(getApiToken(uow, alice, "tk_missing")).rejects.toMatchObject({ code: Code.NotFound });
  });

  test("disabling and enabling return the token as it now is", async () => {
    const { uow, state, tokenId } = await seeded();
    await expect(setApiTokenEnabled(uow, alice, tokenId, false)).resolves.toMatchObject({ enabled: false });
    expect(state.tokens[0]!.enabled).toBe(false);
    await expect(setApiTokenEnabled(uow, alice, tokenId, true)).resolves.toMatchObject({ enabled: true });
  });

  test("another user can neither disable nor delete it", async () => {
    const { uow, state, tokenId } = await seeded();
    await expect(setApiTokenEnabled(uow, bob, tokenId, false)).rejects.toMatchObject({ code: Code.NotFound });
    await expect(deleteApiToken(uow, bob, tokenId)).rejects.toMatchObject({ code: Code.NotFound });
    expect(state.tokens).toEqual([expect.objectContaining({ tokenId, enabled: true })]);
    await deleteApiToken(uow, alice, tokenId);
    expect(state.tokens).toEqual([]);
  });
});
