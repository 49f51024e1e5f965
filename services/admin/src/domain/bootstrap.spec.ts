import { createLogger } from "@hangar/shared";
import { BOOTSTRAP_USER_ID, bootstrapIdentity } from "./bootstrap";
import { inMemoryAdmin, userAt } from "./in-memory-repositories.fixture";
import { hashSecret } from "./tokens";

const logger = createLogger("bootstrap-spec", "silent");
afterEach(() => jest.restoreAllMocks());

describe("bootstrapIdentity on the first start", () => {
  test("creates an org owned by a system-admin user and a token with the given secret", async () => {
    const { uow, state } = inMemoryAdmin();
    const result = await bootstrapIdentity(uow, "hgr_given", logger);
    expect(result).toEqual({ orgId: state.orgs[0]!.orgId, userId: BOOTSTRAP_USER_ID, token: "hgr_given" });
    expect(state.users).toEqual([expect.objectContaining({ userId: "admin", isSystemAdmin: true })]);
    expect(state.memberships).toEqual([expect.objectContaining({ orgId: result!.orgId, userId: "admin", roles: ["owner", "admin", "user"] })]);
    expect(state.tokens).toEqual([expect.objectContaining({ userId: "admin", secretHash: hashSecret("hgr_given"), enabled: true, expires: null, apiScopes: [] })]);
  });

  test("without a given secret the token's is random, and only its hash is stored", async () => {
    const { uow, state } = inMemoryAdmin();
    const result = await bootstrapIdentity(uow, undefined, logger);
    expect(result!.token).toMatch(/^hgr_/);
    expect(state.tokens.map((t) => t.secretHash)).toEqual([hashSecret(result!.token)]);
  });
});

describe("bootstrapIdentity on later starts", () => {
  const started = () => inMemoryAdmin({ users: [userAt(BOOTSTRAP_USER_ID, 0, { isSystemAdmin: true })] });

  test("a new BOOTSTRAP_TOKEN is registered for the bootstrap admin, once, and logged", async () => {
    const { uow, state } = started();
    const info = jest.spyOn(logger, "info");
    await expect(bootstrapIdentity(uow, "hgr_new", logger)).resolves.toBeUndefined();
    await expect(bootstrapIdentity(uow, "hgr_new", logger)).resolves.toBeUndefined();
    expect(state.tokens).toEqual([expect.objectContaining({ userId: "admin", secretHash: hashSecret("hgr_new") })]);
    expect(state.orgs).toEqual([]);
    expect(info).toHaveBeenCalledTimes(1);
  });

  test("without BOOTSTRAP_TOKEN nothing is written", async () => {
    const { uow, state } = started();
    await expect(bootstrapIdentity(uow, undefined, logger)).resolves.toBeUndefined();
    expect(state.tokens).toEqual([]);
  });
});
