import type { IncomingHttpHeaders } from "node:http";

/** The identity headers a caller may send; each also has an `X-Roboto-*` alias the client SDK uses. */
export interface IdentityHeaders {
  orgId?: string;
  userId?: string;
  resourceOwnerId?: string;
  bearer?: string;
}

/** Reads `X-Service-*` headers (or their `X-Roboto-*` aliases) and the bearer token. */
export function readIdentityHeaders(headers: IncomingHttpHeaders): IdentityHeaders {
  const pick = (suffix: string) => first(headers[`x-service-${suffix}`]) ?? first(headers[`x-roboto-${suffix}`]);
  const authorization = first(headers.authorization);
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  const result: IdentityHeaders = {};
  const orgId = pick("org-id");
  const userId = pick("user-id");
  const resourceOwnerId = pick("resource-owner-id");
  if (orgId) result.orgId = orgId;
  if (userId) result.userId = userId;
  if (resourceOwnerId) result.resourceOwnerId = resourceOwnerId;
  if (bearer) result.bearer = bearer;
  return result;
}

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v.trim() === "" ? undefined : v.trim();
}
