import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, notFound, requireOrg } from "@hangar/shared";
import { AdminService } from "@hangar/shared/proto/admin";
import { createApiToken, deleteApiToken, getApiToken, listApiTokens, setApiTokenEnabled } from "../domain/api-tokens";
import { authenticateToken, resolveUser } from "../domain/authentication";
import { createDeviceUserToken, deleteDeviceUser, listDeviceUserTokens } from "../domain/device-users";
import { removeOrgUser, updateOrgUserRoles } from "../domain/memberships";
import { createOrg, getOrg, listOrgMembers, orgsOfUser } from "../domain/orgs";
import type { AdminUnitOfWork } from "../domain/repositories";
import { getOrgUsage } from "../domain/usage";
import { createUser, getCurrentUser, getUser } from "../domain/users";
import { requireMember, requireOrgAdmin, requireService, requireUser } from "./access";
import { orgToProto, tokenResultToProto, userToProto } from "./mappers";
import { createNotificationHandlers } from "./notification-handlers";
import { createCredentialRequestHandlers } from "./credential-request-handlers";

/** What the admin RPCs need: the service's unit of work, and the key invocation tokens are signed with. */
export interface AdminServiceDeps {
  uow: AdminUnitOfWork;
  internalAuthSecret: string;
}

/** Implements hangar.admin.v1.AdminService: per RPC, the caller's access, then its use case in `domain/`. */
export function createAdminServiceImpl(deps: AdminServiceDeps): ServiceImpl<typeof AdminService> {
  const { uow } = deps;
  return {
    ...createNotificationHandlers(uow),
    ...createCredentialRequestHandlers(uow),
    async createOrg(req, ctx) {
      return { org: orgToProto(await createOrg(uow, requireUser(callerOf(ctx)), req.name)) };
    },

    async getOrg(req, ctx) {
      requireMember(callerOf(ctx), req.orgId);
      return { org: orgToProto(await getOrg(uow, req.orgId)) };
    },

    async listMyOrgs(_req, ctx) {
      return { orgs: (await orgsOfUser(uow, requireUser(callerOf(ctx)))).map(orgToProto) };
    },

    async listOrgUsers(req, ctx) {
      requireMember(callerOf(ctx), req.orgId);
      const members = await listOrgMembers(uow, req.orgId);
      return { users: members.map((m) => ({ user: userToProto(m.user), org: orgToProto(m.org), roles: m.roles })) };
    },

    async removeOrgUser(req, ctx) {
      const caller = callerOf(ctx);
      // Anyone may leave an org; removing someone else takes administering it.
      if (req.userId !== caller.subject) requireOrgAdmin(caller, req.orgId);
      else requireMember(caller, req.orgId);
      await removeOrgUser(uow, caller, req.orgId, req.userId);
      return {};
    },

    async updateOrgUserRoles(req, ctx) {
      const caller = callerOf(ctx);
      requireOrgAdmin(caller, req.orgId);
      await updateOrgUserRoles(uow, caller, { orgId: req.orgId, userId: req.urlEncodedUserId, addRoles: req.addRoles, removeRoles: req.removeRoles });
      return {};
    },

    async getOrgUsage(req, ctx) {
      requireMember(callerOf(ctx), req.orgId);
      const rows = await getOrgUsage(uow, req.orgId);
      return {
        items: rows.map((r) => ({ resourceName: r.resourceName, quantity: BigInt(r.quantity), principal: { id: req.orgId, scope: "org" } })),
      };
    },

    async createUser(req, ctx) {
      const caller = callerOf(ctx);
      const creator = requireUser(caller);
      const orgId = req.orgId ?? requireOrg(caller);
      requireOrgAdmin(caller, orgId);
      return { user: userToProto(await createUser(uow, creator, { orgId, userId: req.userId, name: req.name, isServiceUser: req.isServiceUser })) };
    },

    async getCurrentUser(_req, ctx) {
      return { user: userToProto(await getCurrentUser(uow, requireUser(callerOf(ctx)))) };
    },

    async getUser(req, ctx) {
      return { user: userToProto(await getUser(uow, callerOf(ctx), req.userId)) };
    },

    async listUserOrgs(req, ctx) {
      const caller = callerOf(ctx);
      if (!caller.isSystemAdmin && caller.subject !== req.userId) throw notFound("user", req.userId);
      return { orgs: (await orgsOfUser(uow, req.userId)).map(orgToProto) };
    },

    async createApiToken(req, ctx) {
      const { token, secret } = await createApiToken(uow, requireUser(callerOf(ctx)), req);
      return { token: tokenResultToProto(token, secret) };
    },

    async deleteApiToken(req, ctx) {
      await deleteApiToken(uow, callerOf(ctx), req.tokenId);
      return {};
    },

    async listApiTokens(_req, ctx) {
      return { tokens: (await listApiTokens(uow, requireUser(callerOf(ctx)))).map((row) => tokenResultToProto(row)) };
    },

    async getApiToken(req, ctx) {
      return { token: tokenResultToProto(await getApiToken(uow, callerOf(ctx), req.tokenId)) };
    },

    async disableApiToken(req, ctx) {
      return { token: tokenResultToProto(await setApiTokenEnabled(uow, callerOf(ctx), req.tokenId, false)) };
    },

    async enableApiToken(req, ctx) {
      return { token: tokenResultToProto(await setApiTokenEnabled(uow, callerOf(ctx), req.tokenId, true)) };
    },

    async authenticateToken(req, ctx) {
      requireService(callerOf(ctx));
      return authenticateToken(uow, req.secret, deps.internalAuthSecret);
    },

    async resolveUser(req, ctx) {
      requireService(callerOf(ctx));
      return resolveUser(uow, req.userId);
    },

    async createDeviceUserToken(req, ctx) {
      const caller = callerOf(ctx);
      requireService(caller);
      const { token, secret } = await createDeviceUserToken(uow, caller, req);
      return { token: tokenResultToProto(token, secret) };
    },

    async listDeviceUserTokens(req, ctx) {
      const caller = callerOf(ctx);
      requireService(caller);
      return { tokens: (await listDeviceUserTokens(uow, caller, req)).map((row) => tokenResultToProto(row)) };
    },

    async deleteDeviceUser(req, ctx) {
      const caller = callerOf(ctx);
      requireService(caller);
      await deleteDeviceUser(uow, caller, req);
      return {};
    },
  };
}
