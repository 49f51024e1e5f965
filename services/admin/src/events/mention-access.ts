import { createContextKey, createContextValues, createClient, Code, ConnectError, type Client, type Interceptor } from "@connectrpc/connect";
import { PRINCIPAL_HEADER, peerTransport, signPrincipal, unavailable, type Principal, type ServiceRuntime } from "@hangar/shared";
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
 * `accessFor` binds it to repositories (the consumer's transaction's); close() ends the connection.
 */
export function dataMentionAccess(runtime: Pick<ServiceRuntime, "locate" | "internalAuthSecret">): {
  accessFor(repositories: Pick<AdminRepositories, "memberships">): MentionAccess;
  close(): void;
} {
  let client: { data: Client<typeof DataService>; close(): void } | undefined;
  // The data service may start after this one (embedded), so it is located on first use.
  const data = () => (client ??= dataClient(runtime)).data;
  const accessFor = ({ memberships }: Pick<AdminRepositories, "memberships">): MentionAccess => ({
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
  return { accessFor, close: () => client?.close() };
}

function dataClient(runtime: Pick<ServiceRuntime, "locate" | "internalAuthSecret">): { data: Client<typeof DataService>; close(): void } {
  const peer = runtime.locate("data");
  if (!peer) throw unavailable("the data service is not configured (DATA_SERVICE_URL)");
  const sign: Interceptor = (next) => (req) => {
    const principal = req.contextValues.get(actingAs);
    if (principal) req.header.set(PRINCIPAL_HEADER, signPrincipal(principal, runtime.internalAuthSecret));
    return next(req);
  };
  const { transport, close } = peerTransport(peer, { interceptors: [sign] });
  return { data: createClient(DataService, transport), close };
}
