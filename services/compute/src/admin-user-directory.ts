import { Code, ConnectError } from "@connectrpc/connect";
import { peerClient, type ServiceContext, type UserDirectory } from "@hangar/shared";
import { AdminService } from "@hangar/shared/proto/admin";

/**
 * The users the compute service decides runs-as questions about, read from the admin service
 * (its internal ResolveUser RPC), which owns memberships. Asked fresh each time: a membership or
 * role removed a moment ago must count.
 */
export function adminUserDirectory(context: ServiceContext): UserDirectory {
  let admin: ReturnType<typeof adminClient> | undefined;
  return async (userId) => {
    admin ??= adminClient(context);
    try {
      const user = await admin.resolveUser({ userId });
      return { userId: user.userId, isSystemAdmin: user.isSystemAdmin, memberships: user.memberships };
    } catch (error) {
      if (error instanceof ConnectError && error.code === Code.NotFound) return undefined;
      throw error;
    }
  };
}

// ResolveUser is about a user, not an org: the service principal acts in none.
function adminClient(context: ServiceContext) {
  return peerClient({
    service: AdminService,
    peer: "admin",
    caller: "compute",
    orgId: "",
    locate: context.runtime.locate,
    internalAuthSecret: context.runtime.internalAuthSecret,
  });
}
