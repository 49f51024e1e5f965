import type { ServiceImpl } from "@connectrpc/connect";
import {
  callerOf,
  conflict,
  DEVICE_USER_PREFIX,
  failedPrecondition,
  forbidden,
  invalidArgument,
  isDeviceUserId,
  isInvocationToken,
  newId,
  notFound,
  requireOrg,
  rolesIn,
  unauthenticated,
  verifyInvocationToken,
  type Orm,
  type Principal,
  quoteValue,
} from "@hangar/shared";
import { AdminService } from "@hangar/shared/proto/admin";
import { editRoles, MEMBER_ROLE, parseRoles } from "../domain/roles";
import { expiryFrom, hashSecret, isUsable, newTokenSecret, parseApiScopes } from "../domain/tokens";
import type { ApiTokenRow, UserRow } from "../store/entities";
import { IdentityStore } from "../store/identity-store";
import { requireMember, requireOrgAdmin, requireService, requireUser } from "./access";
import { orgToProto, tokenResultToProto, userToProto } from "./mappers";

const MAX_NAME_LENGTH = 256;

/** Implements hangar.admin.v1.AdminService over the admin schema. */
export function createAdminServiceImpl(deps: { orm: Orm; internalAuthSecret: string }): ServiceImpl<typeof AdminService> {
  const store = () => new IdentityStore(deps.orm.em.fork());
  return {
    async createOrg(req, ctx) {
      const userId = requireUser(callerOf(ctx));
      const name = checkName(req.name, "name");
      const s = store();
      const org = { orgId: newId("og"), name, tier: "free", status: "active", created: new Date(), createdBy: userId };
      s.addOrg(org);
      s.addMembership({ orgId: org.orgId, userId, roles: ["owner", MEMBER_ROLE], created: new Date() });
      await s.flush();
      return { org: orgToProto(org) };
    },

    async getOrg(req, ctx) {
      requireMember(callerOf(ctx), req.orgId);
      const org = await store().findOrg(req.orgId);
      if (!org) throw notFound("org", req.orgId);
      return { org: orgToProto(org) };
    },

    async listMyOrgs(_req, ctx) {
      const orgs = await store().orgsOfUser(requireUser(callerOf(ctx)));
      return { orgs: orgs.map(orgToProto) };
    },

    async listOrgUsers(req, ctx) {
      requireMember(callerOf(ctx), req.orgId);
      const s = store();
      const [org, memberships] = [await s.findOrg(req.orgId), await s.membershipsOfOrg(req.orgId)];
      if (!org) throw notFound("org", req.orgId);
      const users = new Map((await s.usersByIds(memberships.map((m) => m.userId))).map((u) => [u.userId, u]));
      return {
        users: memberships.map((m) => ({ user: userToProto(users.get(m.userId)!), org: orgToProto(org), roles: m.roles })),
      };
    },

    async removeOrgUser(req, ctx) {
      const caller = callerOf(ctx);
      if (req.userId !== caller.subject) requireOrgAdmin(caller, req.orgId);
      else requireMember(caller, req.orgId);
      await changeMembership(deps.orm, req.orgId, async (s) => {
        const membership = await s.findMembership(req.orgId, req.userId);
        if (!membership) {
          // Idempotent: removing someone already removed changes nothing and records nothing.
          if (await s.wasRemoved(req.orgId, req.userId)) return;
          throw notFound("org member", req.userId);
        }
        if (req.userId !== caller.subject) requireOwnerForOwnerRole(caller, req.orgId, membership.roles, []);
        await refuseRemovingLastOwner(s, req.orgId, membership.roles, []);
        s.remove(membership);
        await s.audit({ orgId: req.orgId, userId: req.userId, action: "removed", actor: caller.subject, rolesBefore: membership.roles, rolesAfter: [] });
      });
      return {};
    },

    async updateOrgUserRoles(req, ctx) {
      const caller = callerOf(ctx);
      requireOrgAdmin(caller, req.orgId);
      const add = parseRoles(req.addRoles, "add_roles");
      const remove = parseRoles(req.removeRoles, "remove_roles");
      await changeMembership(deps.orm, req.orgId, async (s) => {
        const membership = await s.findMembership(req.orgId, req.urlEncodedUserId);
        if (!membership) throw notFound("org member", req.urlEncodedUserId);
        const before = membership.roles;
        const roles = editRoles(before, add, remove);
        requireOwnerForOwnerRole(caller, req.orgId, before, roles);
        await refuseRemovingLastOwner(s, req.orgId, before, roles);
        if (sameRoles(before, roles)) return;
        membership.roles = roles;
        await s.audit({ orgId: req.orgId, userId: req.urlEncodedUserId, action: "roles", actor: caller.subject, rolesBefore: before, rolesAfter: roles });
      });
      return {};
    },

    async getOrgUsage(req, ctx) {
      requireMember(callerOf(ctx), req.orgId);
      const rows = await store().usageOf(req.orgId);
      return {
        items: rows.map((r) => ({ resourceName: r.resourceName, quantity: BigInt(r.quantity), principal: { id: req.orgId, scope: "org" } })),
      };
    },

    async createUser(req, ctx) {
      const caller = callerOf(ctx);
      const creator = requireUser(caller);
      const orgId = req.orgId ?? requireOrg(caller);
      requireOrgAdmin(caller, orgId);
      const userId = checkName(req.userId, "user_id");
      if (userId.startsWith(DEVICE_USER_PREFIX)) throw invalidArgument("user_id", `'${DEVICE_USER_PREFIX}' is reserved for the users of devices`);
      const s = store();
      // A system admin passes the membership check for any org id, so the org may not exist.
      if (!(await s.findOrg(orgId))) throw notFound("org", orgId);
      const existing = await s.findUser(userId);
      if (existing) return { user: userToProto(await addBack(deps.orm, orgId, existing, creator)) };
      const user = {
        userId,
        name: req.name ?? null,
        isServiceUser: req.isServiceUser,
        isSystemAdmin: false,
        created: new Date(),
        createdBy: creator,
      };
      await changeMembership(deps.orm, orgId, async (tx) => {
        tx.addUser(user);
        tx.addMembership({ orgId, userId, roles: [MEMBER_ROLE], created: new Date() });
        await tx.audit({ orgId, userId, action: "added", actor: creator, rolesBefore: [], rolesAfter: [MEMBER_ROLE] });
      });
      return { user: userToProto(user) };
    },

    async getCurrentUser(_req, ctx) {
      const user = await store().findUser(requireUser(callerOf(ctx)));
      if (!user) throw unauthenticated("the calling user no longer exists");
      return { user: userToProto(user) };
    },

    async getUser(req, ctx) {
      const caller = callerOf(ctx);
      const s = store();
      const user = await s.findUser(req.userId);
      const shared = (await s.membershipsOfUser(req.userId)).some((m) => caller.memberships.some((c) => c.orgId === m.orgId));
      if (!user || !(caller.isSystemAdmin || shared || caller.subject === req.userId)) throw notFound("user", req.userId);
      return { user: userToProto(user) };
    },

    async listUserOrgs(req, ctx) {
      const caller = callerOf(ctx);
      if (!caller.isSystemAdmin && caller.subject !== req.userId) throw notFound("user", req.userId);
      return { orgs: (await store().orgsOfUser(req.userId)).map(orgToProto) };
    },

    async createApiToken(req, ctx) {
      const { token, secret } = newToken(requireUser(callerOf(ctx)), req);
      const s = store();
      s.addToken(token);
      await s.flush();
      return { token: tokenResultToProto(token, secret) };
    },

    async deleteApiToken(req, ctx) {
      const s = store();
      const token = await ownToken(s, callerOf(ctx), req.tokenId);
      s.remove(token);
      await s.flush();
      return {};
    },

    async listApiTokens(_req, ctx) {
      return { tokens: (await store().tokensOfUser(requireUser(callerOf(ctx)))).map((row) => tokenResultToProto(row)) };
    },

    async getApiToken(req, ctx) {
      return { token: tokenResultToProto(await ownToken(store(), callerOf(ctx), req.tokenId)) };
    },

    async disableApiToken(req, ctx) {
      return { token: tokenResultToProto(await setEnabled(store(), callerOf(ctx), req.tokenId, false)) };
    },

    async enableApiToken(req, ctx) {
      return { token: tokenResultToProto(await setEnabled(store(), callerOf(ctx), req.tokenId, true)) };
    },

    async authenticateToken(req, ctx) {
      requireService(callerOf(ctx));
      const s = store();
      if (isInvocationToken(req.secret)) return authenticateInvocationToken(s, req.secret, deps.internalAuthSecret);
      const token = await s.findTokenByHash(hashSecret(req.secret));
      if (!token || !isUsable(token)) throw unauthenticated("invalid, expired or revoked API token");
      const user = await s.findUser(token.userId);
      if (!user) throw unauthenticated("the token's user no longer exists");
      await s.touchToken(token.tokenId);
      const memberships = await s.membershipsOfUser(user.userId);
      return {
        userId: user.userId,
        tokenId: token.tokenId,
        isSystemAdmin: user.isSystemAdmin,
        memberships: memberships.map((m) => ({ orgId: m.orgId, roles: m.roles })),
        apiScopes: token.apiScopes,
      };
    },

    async resolveUser(req, ctx) {
      requireService(callerOf(ctx));
      const s = store();
      const user = await s.findUser(req.userId);
      if (!user) throw notFound("user", req.userId);
      const memberships = await s.membershipsOfUser(user.userId);
      return { userId: user.userId, isSystemAdmin: user.isSystemAdmin, memberships: memberships.map((m) => ({ orgId: m.orgId, roles: m.roles })) };
    },

    async createDeviceUserToken(req, ctx) {
      const caller = callerOf(ctx);
      const userId = deviceUserOf(caller, req);
      const { token, secret } = newToken(userId, req);
      const user = { userId, name: req.userName ?? null, isServiceUser: true, isSystemAdmin: false, created: token.created, createdBy: req.requestedBy || caller.subject };
      await deps.orm.em.fork().transactional(async (em) => {
        const s = new IdentityStore(em);
        await s.addUserIfAbsent(user);
        if (await belongsElsewhere(s, userId, req.orgId)) throw failedPrecondition(`user ${quoteValue(userId)} belongs to another org`);
        await s.addMembershipIfAbsent({ orgId: req.orgId, userId, roles: [MEMBER_ROLE], created: token.created });
        s.addToken(token);
      });
      return { token: tokenResultToProto(token, secret) };
    },

    async listDeviceUserTokens(req, ctx) {
      const userId = deviceUserOf(callerOf(ctx), req);
      const s = store();
      if (!(await s.findMembership(req.orgId, userId))) return { tokens: [] };
      return { tokens: (await s.tokensOfUser(userId)).map((row) => tokenResultToProto(row)) };
    },

    async deleteDeviceUser(req, ctx) {
      const userId = deviceUserOf(callerOf(ctx), req);
      const s = store();
      if (!(await belongsElsewhere(s, userId, req.orgId))) await s.deleteUser(userId);
      return {};
    },
  };
}

/** A new token of `userId` and its secret; validates the name, `expiry_days` and `api_scopes`. */
function newToken(userId: string, req: { name: string; description?: string; expiryDays: bigint; apiScopes: string[] }): { token: ApiTokenRow; secret: string } {
  const name = checkName(req.name, "name");
  // One instant for both, so a token lives exactly `expiry_days` days.
  const created = new Date();
  const expires = expiryFrom(req.expiryDays, created);
  const secret = newTokenSecret();
  const token = {
    tokenId: newId("tk"),
    userId,
    name,
    description: req.description ?? null,
    secretHash: hashSecret(secret),
    apiScopes: parseApiScopes(req.apiScopes),
    created,
    expires,
    lastUsed: null,
    enabled: true,
  };
  return { token, secret };
}

/**
 * The device user an internal device-token call addresses. Only services may make these calls, in
 * the org they act in, and only about `device:` users, so that no caller can mint tokens for a person.
 */
function deviceUserOf(caller: Principal, req: { orgId: string; deviceUserId: string }): string {
  requireService(caller);
  if (req.orgId === "" || req.orgId !== caller.orgId) throw invalidArgument("org_id", "must be the org the calling service acts in");
  if (!isDeviceUserId(req.deviceUserId)) throw invalidArgument("device_user_id", `must be '${DEVICE_USER_PREFIX}<universal_device_id>'`);
  return req.deviceUserId;
}

/** Whether the user belongs to an org other than `orgId` (a device's user belongs to its device's org only). */
async function belongsElsewhere(s: IdentityStore, userId: string, orgId: string): Promise<boolean> {
  return (await s.membershipsOfUser(userId)).some((m) => m.orgId !== orgId);
}

/**
 * An invocation-scoped token (minted by the compute service for a running action) acts as the
 * invocation's user in the invocation's org only, and only while that user is still a member.
 */
async function authenticateInvocationToken(s: IdentityStore, secret: string, internalAuthSecret: string) {
  const claims = verifyInvocationToken(secret, internalAuthSecret);
  const membership = await s.findMembership(claims.orgId, claims.userId);
  if (!membership) throw unauthenticated(`the invocation's user is no longer a member of org ${quoteValue(claims.orgId)}`);
  return { userId: claims.userId, tokenId: "", isSystemAdmin: false, memberships: [{ orgId: membership.orgId, roles: membership.roles }], apiScopes: [] };
}

function checkName(value: string, field: string): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) throw invalidArgument(field, "must not be empty");
  if (trimmed.length > MAX_NAME_LENGTH) throw invalidArgument(field, `must be at most ${MAX_NAME_LENGTH} characters`);
  return trimmed;
}

async function ownToken(s: IdentityStore, caller: ReturnType<typeof callerOf>, tokenId: string) {
  const token = await s.findToken(tokenId);
  if (!token || (token.userId !== caller.subject && !caller.isSystemAdmin)) throw notFound("API token", tokenId);
  return token;
}

async function setEnabled(s: IdentityStore, caller: ReturnType<typeof callerOf>, tokenId: string, enabled: boolean) {
  const token = await ownToken(s, caller, tokenId);
  token.enabled = enabled;
  await s.flush();
  return token;
}

/**
 * Runs a change of an org's memberships in a transaction that holds the org's lock, so that the
 * owner count it checks cannot change under it.
 */
async function changeMembership(orm: Orm, orgId: string, change: (s: IdentityStore) => Promise<void>): Promise<void> {
  await orm.em.fork().transactional(async (em) => {
    const s = new IdentityStore(em);
    await s.lockOrg(orgId);
    await change(s);
  });
}

/**
 * Adds a user removed from the org back to it, as a plain member. Only a user the org once had:
 * any other existing user id is taken (409), as before, so an org cannot claim another org's users.
 */
async function addBack(orm: Orm, orgId: string, user: UserRow, actor: string): Promise<UserRow> {
  await changeMembership(orm, orgId, async (s) => {
    if ((await s.findMembership(orgId, user.userId)) || !(await s.wasRemoved(orgId, user.userId))) {
      throw conflict(`user '${user.userId}' already exists`);
    }
    s.addMembership({ orgId, userId: user.userId, roles: [MEMBER_ROLE], created: new Date() });
    await s.audit({ orgId, userId: user.userId, action: "added", actor, rolesBefore: [], rolesAfter: [MEMBER_ROLE] });
  });
  return user;
}

/**
 * Only an owner (or a system admin) grants or takes away the owner role, or removes an owner: an
 * admin must not be able to make itself owner, or remove the owners above it. 403 otherwise.
 */
function requireOwnerForOwnerRole(caller: Principal, orgId: string, before: readonly string[], after: readonly string[]): void {
  if (before.includes("owner") === after.includes("owner")) return;
  if (caller.isSystemAdmin || rolesIn(caller, orgId)?.includes("owner")) return;
  throw forbidden(`granting or removing the owner role in org '${orgId}' needs the owner role`);
}

function sameRoles(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((role) => b.includes(role));
}

/** An org must keep at least one owner, or nobody could administer it. */
async function refuseRemovingLastOwner(s: IdentityStore, orgId: string, before: string[], after: string[]): Promise<void> {
  if (!before.includes("owner") || after.includes("owner")) return;
  const owners = (await s.membershipsOfOrg(orgId)).filter((m) => m.roles.includes("owner"));
  if (owners.length <= 1) throw conflict(`org ${quoteValue(orgId)} must keep at least one owner`);
}
