import { DEVICE_USER_PREFIX, failedPrecondition, invalidArgument, isDeviceUserId, quoteValue, type Principal } from "@hangar/shared";
import { mintToken, type MintedToken, type TokenRequest } from "./api-tokens";
import { newMembership } from "./memberships";
import type { TokenRecord } from "./records";
import type { AdminRepositories, AdminUnitOfWork } from "./repositories";

/** The device user an internal device-token call addresses, in the org it names. */
export interface DeviceUserRef {
  orgId: string;
  deviceUserId: string;
}

/** A device token to mint, with the device user's display name and who asked for it. */
export interface DeviceTokenRequest extends DeviceUserRef, TokenRequest {
  userName?: string | undefined;
  requestedBy: string;
}

/**
 * Checks a device-token call's addressing (the caller is another service, as `rpc/` checked):
 * its org must be the one that service acts in, and its user a `device:` user, so that no caller
 * can mint tokens for a person. Returns the device user's id.
 */
export function checkDeviceUser(caller: Principal, ref: DeviceUserRef): string {
  if (ref.orgId === "" || ref.orgId !== caller.orgId) throw invalidArgument("org_id", "must be the org the calling service acts in");
  if (!isDeviceUserId(ref.deviceUserId)) throw invalidArgument("device_user_id", `must be '${DEVICE_USER_PREFIX}<universal_device_id>'`);
  return ref.deviceUserId;
}

/**
 * Mints a token for a device's user, creating the user (a service user) and its membership of the
 * org on first use, in one transaction. A device's user belongs to its device's org only: one of
 * another org is refused (412) and nothing is written. The calling component is the user's creator
 * when the request names none.
 */
export async function createDeviceUserToken(uow: AdminUnitOfWork, caller: Principal, request: DeviceTokenRequest): Promise<MintedToken> {
  const userId = checkDeviceUser(caller, request);
  const orgId = request.orgId;
  const minted = mintToken(userId, request);
  const created = minted.token.created;
  const user = { userId, name: request.userName ?? null, isServiceUser: true, isSystemAdmin: false, created, createdBy: request.requestedBy || caller.subject };
  await uow.transaction(async (r) => {
    await r.users.addIfAbsent(user);
    if (await belongsElsewhere(r, userId, orgId)) throw failedPrecondition(`user ${quoteValue(userId)} belongs to another org`);
    await r.memberships.addIfAbsent(newMembership(orgId, userId, created));
    await r.tokens.add(minted.token);
  });
  return minted;
}

/** The device user's tokens; none when the user is not a member of the org. */
export async function listDeviceUserTokens(uow: AdminUnitOfWork, caller: Principal, ref: DeviceUserRef): Promise<TokenRecord[]> {
  const userId = checkDeviceUser(caller, ref);
  const r = uow.repositories();
  if (!(await r.memberships.find(ref.orgId, userId))) return [];
  return r.tokens.ofUser(userId);
}

/** Deletes the device user with its tokens, unless it belongs to another org (then nothing changes). */
export async function deleteDeviceUser(uow: AdminUnitOfWork, caller: Principal, ref: DeviceUserRef): Promise<void> {
  const userId = checkDeviceUser(caller, ref);
  const r = uow.repositories();
  if (!(await belongsElsewhere(r, userId, ref.orgId))) await r.users.delete(userId);
}

/** Whether the user belongs to an org other than `orgId`. */
async function belongsElsewhere(r: AdminRepositories, userId: string, orgId: string): Promise<boolean> {
  return (await r.memberships.ofUser(userId)).some((m) => m.orgId !== orgId);
}
