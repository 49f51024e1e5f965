import { DEVICE_USER_PREFIX, invalidArgument, notFound, unauthenticated, type Principal } from "@hangar/shared";
import { addBack, addMember, changeMembership } from "./memberships";
import { checkName } from "./names";
import type { UserRecord } from "./records";
import type { AdminUnitOfWork } from "./repositories";

/** A user to create in an org, as the request gave it. */
export interface NewUser {
  orgId: string;
  userId: string;
  name?: string | undefined;
  isServiceUser: boolean;
}

/**
 * Creates a user as a plain member of an org and records the addition, in one transaction. The
 * user id is validated (`device:` ids are the device users'); the org must exist (a system admin
 * passes the access check for any id). An existing user id is 409, unless it names a user the org
 * removed: that user is added back.
 */
export async function createUser(uow: AdminUnitOfWork, creator: string, input: NewUser): Promise<UserRecord> {
  const userId = checkName(input.userId, "user_id");
  if (userId.startsWith(DEVICE_USER_PREFIX)) throw invalidArgument("user_id", `'${DEVICE_USER_PREFIX}' is reserved for the users of devices`);
  const r = uow.repositories();
  if (!(await r.orgs.find(input.orgId))) throw notFound("org", input.orgId);
  const existing = await r.users.find(userId);
  if (existing) return addBack(uow, input.orgId, existing, creator);
  const user = { userId, name: input.name ?? null, isServiceUser: input.isServiceUser, isSystemAdmin: false, created: new Date(), createdBy: creator };
  await changeMembership(uow, input.orgId, async (tx) => {
    await tx.users.add(user);
    await addMember(tx, input.orgId, userId, creator);
  });
  return user;
}

/** The calling user's record; 401 when it was deleted since its token was checked. */
export async function getCurrentUser(uow: AdminUnitOfWork, userId: string): Promise<UserRecord> {
  const user = await uow.repositories().users.find(userId);
  if (!user) throw unauthenticated("the calling user no longer exists");
  return user;
}

/**
 * A user as `caller` may see it: its own record, a user sharing an org with it, or any user for a
 * system admin. Anyone else is 404, as a user that does not exist, so user ids do not leak.
 */
export async function getUser(uow: AdminUnitOfWork, caller: Principal, userId: string): Promise<UserRecord> {
  const r = uow.repositories();
  const user = await r.users.find(userId);
  const shared = (await r.memberships.ofUser(userId)).some((m) => caller.memberships.some((c) => c.orgId === m.orgId));
  if (!user || !(caller.isSystemAdmin || shared || caller.subject === userId)) throw notFound("user", userId);
  return user;
}
