import { invocationTokenId, isInvocationToken, notFound, quoteValue, unauthenticated, verifyInvocationToken } from "@hangar/shared";
import type { MembershipRecord } from "./records";
import type { AdminRepositories, AdminUnitOfWork } from "./repositories";
import { hashSecret, isUsable } from "./tokens";

/** Who a user is across orgs: what the gateway signs into a principal. */
export interface Identity {
  userId: string;
  isSystemAdmin: boolean;
  memberships: { orgId: string; roles: string[] }[];
}

/** Who a token's secret authenticates: its user's identity, the token (`invocation:<id>` for invocation tokens) and its scopes. */
export interface Authentication extends Identity {
  tokenId: string;
  /** Empty means unrestricted. */
  apiScopes: string[];
}

/**
 * Authenticates a token's secret. An API token must exist, be enabled and unexpired and its user
 * must exist (401 otherwise); it is stamped as used. An invocation token (see
 * `authenticateInvocationToken`) is verified by its signature, with `internalAuthSecret`.
 */
export async function authenticateToken(uow: AdminUnitOfWork, secret: string, internalAuthSecret: string): Promise<Authentication> {
  const r = uow.repositories();
  if (isInvocationToken(secret)) return authenticateInvocationToken(r, secret, internalAuthSecret);
  const token = await r.tokens.findByHash(hashSecret(secret));
  if (!token || !isUsable(token)) throw unauthenticated("invalid, expired or revoked API token");
  const user = await r.users.find(token.userId);
  if (!user) throw unauthenticated("the token's user no longer exists");
  await r.tokens.touch(token.tokenId);
  const memberships = await r.memberships.ofUser(user.userId);
  return { userId: user.userId, tokenId: token.tokenId, isSystemAdmin: user.isSystemAdmin, memberships: memberships.map(orgRoles), apiScopes: token.apiScopes };
}

/** A user's identity, for services acting as that user (404 when it does not exist). */
export async function resolveUser(uow: AdminUnitOfWork, userId: string): Promise<Identity> {
  const r = uow.repositories();
  const user = await r.users.find(userId);
  if (!user) throw notFound("user", userId);
  const memberships = await r.memberships.ofUser(user.userId);
  return { userId: user.userId, isSystemAdmin: user.isSystemAdmin, memberships: memberships.map(orgRoles) };
}

/**
 * An invocation-scoped token (minted by the compute service for a running action) acts as the
 * invocation's user in the invocation's org only, and only while that user is still a member.
 */
async function authenticateInvocationToken(r: AdminRepositories, secret: string, internalAuthSecret: string): Promise<Authentication> {
  const claims = verifyInvocationToken(secret, internalAuthSecret);
  const membership = await r.memberships.find(claims.orgId, claims.userId);
  if (!membership) throw unauthenticated(`the invocation's user is no longer a member of org ${quoteValue(claims.orgId)}`);
  return { userId: claims.userId, tokenId: invocationTokenId(claims.invocationId), isSystemAdmin: false, memberships: [orgRoles(membership)], apiScopes: [] };
}

function orgRoles(membership: MembershipRecord): { orgId: string; roles: string[] } {
  return { orgId: membership.orgId, roles: membership.roles };
}
