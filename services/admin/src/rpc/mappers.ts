import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ApiTokenRecordSchema, ApiTokenResultSchema, OrganizationSchema, UserSchema } from "@hangar/shared/proto/admin";
import type { OrgRecord, TokenRecord, UserRecord } from "../domain/records";

/** Org record to its wire record. */
export function orgToProto(row: OrgRecord): MessageInitShape<typeof OrganizationSchema> {
  return { orgId: row.orgId, name: row.name, tier: row.tier, status: row.status, created: timestampFromDate(row.created), createdBy: row.createdBy };
}

/** User record to its wire record. */
export function userToProto(row: UserRecord): MessageInitShape<typeof UserSchema> {
  return {
    userId: row.userId,
    ...(row.name !== null ? { name: row.name } : {}),
    isServiceUser: row.isServiceUser,
    isSystemAdmin: row.isSystemAdmin,
    created: timestampFromDate(row.created),
    createdBy: row.createdBy,
  };
}

/** Token record to its wire record (never the secret). */
export function tokenToProto(row: TokenRecord): MessageInitShape<typeof ApiTokenRecordSchema> {
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

/** Token record to the shape the client SDK reads tokens in; the secret only when just created. */
export function tokenResultToProto(row: TokenRecord, secret?: string): MessageInitShape<typeof ApiTokenResultSchema> {
  return { ...(secret !== undefined ? { secret } : {}), userId: row.userId, context: tokenToProto(row) };
}
