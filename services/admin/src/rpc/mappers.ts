import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ApiTokenRecordSchema, ApiTokenResultSchema, OrganizationSchema, UserSchema } from "@hangar/shared/proto/admin";
import type { ApiTokenRow, OrgRow, UserRow } from "../store/entities";

/** Org row to its wire record. */
export function orgToProto(row: OrgRow): MessageInitShape<typeof OrganizationSchema> {
  return { orgId: row.orgId, name: row.name, tier: row.tier, status: row.status, created: timestampFromDate(row.created), createdBy: row.createdBy };
}

/** User row to its wire record. */
export function userToProto(row: UserRow): MessageInitShape<typeof UserSchema> {
  return {
    userId: row.userId,
    ...(row.name !== null ? { name: row.name } : {}),
    isServiceUser: row.isServiceUser,
    isSystemAdmin: row.isSystemAdmin,
    created: timestampFromDate(row.created),
    createdBy: row.createdBy,
  };
}

/** Token row to its wire record (never the secret). */
export function tokenToProto(row: ApiTokenRow): MessageInitShape<typeof ApiTokenRecordSchema> {
  return {
    tokenId: row.tokenId,
    userId: row.userId,
    name: row.name,
    ...(row.description !== null ? { description: row.description } : {}),
    created: timestampFromDate(row.created),
    ...(row.expires ? { expires: timestampFromDate(row.expires) } : {}),
    ...(row.lastUsed ? { lastUsed: timestampFromDate(row.lastUsed) } : {}),
    enabled: row.enabled,
    apiScopes: row.apiScopes,
  };
}

/** Token row to the shape the client SDK reads tokens in; the secret only when just created. */
export function tokenResultToProto(row: ApiTokenRow, secret?: string): MessageInitShape<typeof ApiTokenResultSchema> {
  return { ...(secret !== undefined ? { secret } : {}), userId: row.userId, context: tokenToProto(row) };
}
