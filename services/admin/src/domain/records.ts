/**
 * The admin service's records as its use cases see them. The store's entity schemas are declared
 * over these shapes, so a row read from the database is one of these and nothing ORM-specific
 * leaks into `domain/` or `rpc/`.
 */

/** An organization (tenant). */
export interface OrgRecord {
  orgId: string;
  name: string;
  tier: string;
  status: string;
  created: Date;
  createdBy: string;
}

/** A user: a person or a service account. */
export interface UserRecord {
  userId: string;
  name: string | null;
  isServiceUser: boolean;
  isSystemAdmin: boolean;
  created: Date;
  createdBy: string;
}

/** A user's membership of an org. */
export interface MembershipRecord {
  orgId: string;
  userId: string;
  roles: string[];
  created: Date;
}

/** An API token; only the SHA-256 of its secret is stored. */
export interface TokenRecord {
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

/** A usage figure of an org, maintained from events; `quantity` is a bigint's decimal text. */
export interface UsageRecord {
  orgId: string;
  resourceName: string;
  quantity: string;
}

/** One entry of the membership audit trail: who added (back), removed or changed the roles of whom. */
export interface MembershipAuditEntry {
  orgId: string;
  userId: string;
  action: "added" | "removed" | "roles";
  /** The user who made the change. */
  actor: string;
  rolesBefore: readonly string[];
  rolesAfter: readonly string[];
}
