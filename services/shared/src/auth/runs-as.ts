import { permissionDenied } from "../errors";
import { administers, rolesIn, type Principal } from "./principal";

/** A user as a runs-as decision reads it: the orgs it belongs to and whether it is a system admin. */
export type RunsAsParty = Pick<Principal, "memberships" | "isSystemAdmin"> & { userId: string };

/**
 * Looks a user up by id (the admin service's ResolveUser, for the compute service); undefined for
 * a user that does not exist, so that an unknown user and another org's user are refused alike.
 */
export type UserDirectory = (userId: string) => Promise<RunsAsParty | undefined>;

/**
 * Why `grantor` may not have something of `orgId` run as `runsAs`, or undefined when it may. The
 * rule (issue 9): what runs, runs as someone the grantor may act as. That is the grantor itself, or,
 * when the grantor administers the org (owner, admin or system admin), another member of the org.
 * The user run as must be a member of the org either way, since its tokens act there.
 */
export function runsAsRefusal(grantor: RunsAsParty, orgId: string, runsAs: RunsAsParty | undefined): string | undefined {
  if (!runsAs || rolesIn(runsAs, orgId) === undefined) return `the user named is not a member of org '${orgId}'`;
  if (runsAs.userId === grantor.userId || administers(grantor, orgId)) return undefined;
  return `only an owner or admin of org '${orgId}' may name a user other than themselves`;
}

/**
 * Checks a request field that names who something runs as (a trigger's `service_user_id`): the
 * caller itself, or a member of the org when the caller administers it. Otherwise 403
 * PERMISSION_DENIED naming `field`. Asks the directory only about a user other than the caller.
 */
export async function requireRunsAs(caller: Principal, orgId: string, userId: string, field: string, users: UserDirectory): Promise<void> {
  const grantor: RunsAsParty = { userId: caller.subject, memberships: caller.memberships, isSystemAdmin: caller.isSystemAdmin };
  const runsAs = userId === caller.subject ? grantor : await users(userId);
  const refusal = runsAsRefusal(grantor, orgId, runsAs);
  if (refusal !== undefined) throw permissionDenied(field, refusal);
}
