import { createContextKey, createContextValues, createClient, Code, ConnectError, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { PRINCIPAL_HEADER, signPrincipal, unavailable, type Principal, type ServiceRuntime } from "@hangar/shared";
import { DataService } from "@hangar/shared/proto/data";
import type { MentionAccess } from "../domain/mention-notifications";
import type { AdminRepositories } from "../domain/repositories";

// The principal one call acts as, signed by the interceptor: one connection serves every user.
const actingAs = createContextKey<Principal | undefined>(undefined, { description: "the user a call acts for" });

/**
 * Whether a mentioned user can see a comment's entity, decided by the data service: the admin
 * service, which keeps users and memberships, asks it for the comment acting as that user (a
 * principal with the user's memberships, signed with the internal key, as the gateway signs one).
 * An answer means yes; a 404 (no membership of the org, the entity or comment gone) means no.
 * `memberships` are read in the consumer's transaction.
 */
export function dataMentionAccess(runtime: Pick<ServiceRuntime, "locate" | "internalAuthSecret">): (repositories: Pick<AdminRepositories, "memberships">) => MentionAccess {
  let client: Client<typeof DataService> | undefined;
  // The data service may start after this one (embedded), so it is located on first use.
  const data = () => (client ??= dataClient(runtime));
  return ({ memberships }) => ({
    async canSee(userId, mention) {
      const held = await memberships.ofUser(userId);
      if (!held.some((m) => m.orgId === mention.orgId)) return false;
      const principal: Principal = {
        kind: "user",
        subject: userId,
        orgId: mention.orgId,
        resourceOwnerId: mention.orgId,
        memberships: held.map((m) => ({ orgId: m.orgId, roles: m.roles })),
        isSystemAdmin: false,
      };
      try {
        await data().getComment({ commentId: mention.commentId }, { contextValues: createContextValues().set(actingAs, principal) });
        return true;
      } catch (error) {
        if (error instanceof ConnectError && [Code.NotFound, Code.Unauthenticated, Code.PermissionDenied].includes(error.code)) return false;
        throw error;
      }
    },
  });
}

function dataClient(runtime: Pick<ServiceRuntime, "locate" | "internalAuthSecret">): Client<typeof DataService> {
  const baseUrl = runtime.locate("data");
  if (!baseUrl) throw unavailable("the data service is not configured (DATA_SERVICE_URL)");
  const sign: Interceptor = (next) => (req) => {
    const principal = req.contextValues.get(actingAs);
    if (principal) req.header.set(PRINCIPAL_HEADER, signPrincipal(principal, runtime.internalAuthSecret));
    return next(req);
  };
  return createClient(DataService, createGrpcTransport({ baseUrl, interceptors: [sign], defaultTimeoutMs: 30_000 }));
}
