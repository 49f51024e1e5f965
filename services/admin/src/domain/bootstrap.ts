import { newId, type Logger, type Orm } from "@hangar/shared";
import { IdentityStore } from "../store/identity-store";
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
 * token for that user: `bootstrapToken` when given, else a random secret. On later starts it only
 * makes sure a given `bootstrapToken` still authenticates, so scripts that rely on it keep working.
 */
export async function bootstrapIdentity(orm: Orm, bootstrapToken: string | undefined, logger: Logger): Promise<BootstrapResult | undefined> {
  const store = new IdentityStore(orm.em.fork());
  if ((await store.countUsers()) > 0) {
    if (bootstrapToken && !(await store.findTokenByHash(hashSecret(bootstrapToken)))) {
      addToken(store, bootstrapToken);
      await store.flush();
      logger.info("BOOTSTRAP_TOKEN registered for the bootstrap admin");
    }
    return undefined;
  }
  const now = new Date();
  const orgId = newId("og");
  store.addOrg({ orgId, name: "default", tier: "free", status: "active", created: now, createdBy: BOOTSTRAP_USER_ID });
  store.addUser({ userId: BOOTSTRAP_USER_ID, name: "Administrator", isServiceUser: false, isSystemAdmin: true, created: now, createdBy: BOOTSTRAP_USER_ID });
  store.addMembership({ orgId, userId: BOOTSTRAP_USER_ID, roles: ["owner", "admin", MEMBER_ROLE], created: now });
  const token = bootstrapToken ?? newTokenSecret();
  addToken(store, token);
  await store.flush();
  return { orgId, userId: BOOTSTRAP_USER_ID, token };
}

function addToken(store: IdentityStore, secret: string): void {
  store.addToken({
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
