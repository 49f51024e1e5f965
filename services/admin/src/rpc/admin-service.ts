import type { ServiceImpl } from "@connectrpc/connect";
import {
  callerOf,
  conflict,
  DEVICE_USER_PREFIX,
  failedPrecondition,
  invalidArgument,
  isDeviceUserId,
  isInvocationToken,
  newId,
  notFound,
  requireOrg,
  unauthenticated,
  verifyInvocationToken,
  type Orm,
  type Principal,
  quoteValue,
} from "@hangar/shared";
import { AdminService } from "@hangar/shared/proto/admin";
import { editRoles, MEMBER_ROLE, parseRoles } from "../domain/roles";
import { expiryFrom, hashSecret, isUsable, newTokenSecret, parseApiScopes } from "../domain/tokens";
import type { ApiTokenRow } from "../store/entities";
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
      const s = store();
      const membership = await s.findMembership(req.orgId, req.userId);
      if (!membership) throw notFound("org member", req.userId);
      await refuseRemovingLastOwner(s, req.orgId, membership.roles, []);
      s.remove(membership);
      await s.flush();
      return {};
    },

    async updateOrgUserRoles(req, ctx) {
      requireOrgAdmin(callerOf(ctx), req.orgId);
      const add = parseRoles(req.addRoles, "add_roles");
      const remove = parseRoles(req.removeRoles, "remove_roles");
      const s = store();
      const membership = await s.findMembership(req.orgId, req.urlEncodedUserId);
      if (!membership) throw notFound("org member", req.urlEncodedUserId);
      const roles = editRoles(membership.roles, add, remove);
      if (membership.roles.includes("owner") && !roles.includes("owner")) await refuseRemovingLastOwner(s, req.orgId, membership.roles, roles);
      membership.roles = roles;
      await s.flush();
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
      if (await s.findUser(userId)) throw conflict(`user ${quoteValue(userId)} already exists`);
      const user = {
        userId,
        name: req.name ?? null,
        isServiceUser: req.isServiceUser,
        isSystemAdmin: false,
        created: new Date(),
        createdBy: creator,
      };
      s.addUser(user);
      s.addMembership({ orgId, userId, roles: [MEMBER_ROLE], created: new Date() });
      await s.flush();
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

/** An org must keep at least one owner, or nobody could administer it. */
async function refuseRemovingLastOwner(s: IdentityStore, orgId: string, before: string[], after: string[]): Promise<void> {
  if (!before.includes("owner") || after.includes("owner")) return;
  const owners = (await s.membershipsOfOrg(orgId)).filter((m) => m.roles.includes("owner"));
  if (owners.length <= 1) throw conflict(`org ${quoteValue(orgId)} must keep at least one owner`);
}
