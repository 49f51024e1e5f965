import { newId, type Logger } from "@hangar/shared";
import type { AdminRepositories, AdminUnitOfWork } from "./repositories";
import { MEMBER_ROLE } from "./roles";
import { hashSecret, newTokenSecret } from "./tokens";

/** What the first start created, for the operator to see. */
export interface BootstrapResult {
  orgId: string;
  userId: string;
  /** The admin token's secret: printed once, never stored in clear. */
  token: string;
}

/** The bootstrap administrator's user id. */
export const BOOTSTRAP_USER_ID = "admin";

/**
 * On the first start (no users yet) creates an org, a system-admin user who owns it, and a
 * token for that user: `bootstrapToken` when given, else a random secret, all in one transaction.
 * On later starts it only makes sure a given `bootstrapToken` still authenticates, so scripts
 * that rely on it keep working.
 */
export async function bootstrapIdentity(uow: AdminUnitOfWork, bootstrapToken: string | undefined, logger: Logger): Promise<BootstrapResult | undefined> {
  const result = await uow.transaction(async (r) => ((await r.users.count()) > 0 ? undefined : createFirstAdmin(r, bootstrapToken)));
  if (result === undefined && bootstrapToken && (await registerToken(uow, bootstrapToken))) {
    logger.info("BOOTSTRAP_TOKEN registered for the bootstrap admin");
  }
  return result;
}

async function createFirstAdmin(r: AdminRepositories, bootstrapToken: string | undefined): Promise<BootstrapResult> {
  const now = new Date();
  const orgId = newId("og");
  await r.orgs.add({ orgId, name: "default", tier: "free", status: "active", created: now, createdBy: BOOTSTRAP_USER_ID });
  await r.users.add({ userId: BOOTSTRAP_USER_ID, name: "Administrator", isServiceUser: false, isSystemAdmin: true, created: now, createdBy: BOOTSTRAP_USER_ID });
  await r.memberships.add({ orgId, userId: BOOTSTRAP_USER_ID, roles: ["owner", "admin", MEMBER_ROLE], created: now });
  const token = bootstrapToken ?? newTokenSecret();
  await addToken(r, token);
  return { orgId, userId: BOOTSTRAP_USER_ID, token };
}

/** Gives the bootstrap admin a token with this secret unless one exists; whether it added one. */
function registerToken(uow: AdminUnitOfWork, secret: string): Promise<boolean> {
  return uow.transaction(async (r) => {
    if (await r.tokens.findByHash(hashSecret(secret))) return false;
    await addToken(r, secret);
    return true;
  });
}

function addToken(r: AdminRepositories, secret: string): Promise<void> {
  return r.tokens.add({
    tokenId: newId("tk"),
    userId: BOOTSTRAP_USER_ID,
    name: "bootstrap",
    description: "created at first start",
    secretHash: hashSecret(secret),
    apiScopes: [],
    created: new Date(),
    expires: null,
    lastUsed: null,
    enabled: true,
  });
}
