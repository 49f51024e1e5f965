import { EntitySchema } from "@mikro-orm/core";

/** An organization (tenant). */
export interface OrgRow {
  orgId: string;
  name: string;
  tier: string;
  status: string;
  created: Date;
  createdBy: string;
}

/** A user: a person or a service account. */
export interface UserRow {
  userId: string;
  name: string | null;
  isServiceUser: boolean;
  isSystemAdmin: boolean;
  created: Date;
  createdBy: string;
}

/** A user's membership of an org. */
export interface MembershipRow {
  orgId: string;
  userId: string;
  roles: string[];
  created: Date;
}

/** An API token; only the SHA-256 of its secret is stored. */
export interface ApiTokenRow {
  tokenId: string;
  userId: string;
  name: string;
  description: string | null;
  secretHash: string;
  apiScopes: string[];
  created: Date;
  expires: Date | null;
  lastUsed: Date | null;
  enabled: boolean;
}

/** A usage figure of an org, maintained from events. */
export interface UsageRow {
  orgId: string;
  resourceName: string;
  quantity: string;
}

export const Org = new EntitySchema<OrgRow>({
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

export const User = new EntitySchema<UserRow>({
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

export const Membership = new EntitySchema<MembershipRow>({
  name: "Membership",
  tableName: "memberships",
  properties: {
    orgId: { type: "string", primary: true },
    userId: { type: "string", primary: true },
    roles: { type: "string[]" },
    created: { type: "Date" },
  },
});

export const ApiToken = new EntitySchema<ApiTokenRow>({
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

export const Usage = new EntitySchema<UsageRow>({
  name: "Usage",
  tableName: "usage",
  properties: {
    orgId: { type: "string", primary: true },
    resourceName: { type: "string", primary: true },
    quantity: { type: "bigint" },
  },
});

export const adminEntities = [Org, User, Membership, ApiToken, Usage];
