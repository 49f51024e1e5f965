import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf } from "@hangar/shared";
import type { AdminService } from "@hangar/shared/proto/admin";
import { approveCredentialRequest, createCredentialRequest, denyCredentialRequest, exchangeCredentialRequest } from "../domain/credential-requests";
import type { AdminUnitOfWork } from "../domain/repositories";
import { requireUser } from "./access";
import { tokenResultToProto } from "./mappers";

type CredentialRequestHandlers = Pick<ServiceImpl<typeof AdminService>, "createCredentialRequest" | "exchangeCredentialRequest" | "approveCredentialRequest" | "denyCredentialRequest">;

/**
 * The CLI's browser sign-in: creating and redeeming a request need no token (the gateway serves
 * them anonymously, rate-limited); approving and denying are a signed-in user's.
 */
export function createCredentialRequestHandlers(uow: AdminUnitOfWork): CredentialRequestHandlers {
  return {
    async createCredentialRequest(req, ctx) {
      const { request, approvalUrl } = await createCredentialRequest(uow, req, callerOf(ctx).publicUrl);
      return { credentialRequestId: request.credentialRequestId, confirmationCode: request.confirmationCode, approvalUrl, expires: timestampFromDate(request.expires) };
    },

    async exchangeCredentialRequest(req) {
      const { token, secret } = await exchangeCredentialRequest(uow, req);
      return { token: tokenResultToProto(token, secret) };
    },

    async approveCredentialRequest(req, ctx) {
      const approval = await approveCredentialRequest(uow, requireUser(callerOf(ctx)), req.credentialRequestId, req.confirmationCode);
      const { clientHostname, clientVersion } = approval.request;
      return { authorizationCode: approval.authorizationCode, clientHostname, clientVersion, ...(approval.redirectUrl ? { redirectUrl: approval.redirectUrl } : {}) };
    },

    async denyCredentialRequest(req, ctx) {
      requireUser(callerOf(ctx));
      const redirectUrl = await denyCredentialRequest(uow, req.credentialRequestId);
      return redirectUrl ? { redirectUrl } : {};
    },
  };
}
