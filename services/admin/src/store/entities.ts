import { EntitySchema } from "@mikro-orm/core";
import type { MembershipRecord, OrgRecord, TokenRecord, UsageRecord, UserRecord } from "../domain/records";

// Each schema is declared over the domain's record, so a row read is a record and store/ adds no shape of its own.

/** Orgs (`orgs`): the tenants. */
export const Org = new EntitySchema<OrgRecord>({
  name: "Org",
  tableName: "orgs",
  properties: {
    orgId: { type: "string", primary: true },
    name: { type: "string" },
    tier: { type: "string" },
    status: { type: "string" },
    created: { type: "Date" },
    createdBy: { type: "string" },
  },
});

/** Users (`users`): people and service accounts. */
export const User = new EntitySchema<UserRecord>({
  name: "User",
  tableName: "users",
  properties: {
    userId: { type: "string", primary: true },
    name: { type: "string", nullable: true },
    isServiceUser: { type: "boolean" },
    isSystemAdmin: { type: "boolean" },
    created: { type: "Date" },
    createdBy: { type: "string" },
  },
});

/** Memberships (`memberships`): a user's roles in an org. */
export const Membership = new EntitySchema<MembershipRecord>({
  name: "Membership",
  tableName: "memberships",
  properties: {
    orgId: { type: "string", primary: true },
    userId: { type: "string", primary: true },
    roles: { type: "string[]" },
    created: { type: "Date" },
  },
});

/** API tokens (`api_tokens`); only the SHA-256 of a secret is stored. */
export const ApiToken = new EntitySchema<TokenRecord>({
  name: "ApiToken",
  tableName: "api_tokens",
  properties: {
    tokenId: { type: "string", primary: true },
    userId: { type: "string" },
    name: { type: "string" },
    description: { type: "string", nullable: true },
    secretHash: { type: "string" },
    apiScopes: { type: "string[]" },
    created: { type: "Date" },
    expires: { type: "Date", nullable: true },
    lastUsed: { type: "Date", nullable: true },
    enabled: { type: "boolean" },
  },
});

/** Usage counters (`usage`), maintained from events. */
export const Usage = new EntitySchema<UsageRecord>({
  name: "Usage",
  tableName: "usage",
  properties: {
    orgId: { type: "string", primary: true },
    resourceName: { type: "string", primary: true },
    quantity: { type: "bigint" },
  },
});

/** The admin schema's entities, for the service definition. */
export const adminEntities = [Org, User, Membership, ApiToken, Usage];
