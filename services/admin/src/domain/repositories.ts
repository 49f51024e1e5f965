import type { UnitOfWork } from "@hangar/shared";
import type { CredentialRequestRepository } from "./credential-requests";
import type { NotificationRepository } from "./notifications";
import type { UserConfigRepository } from "./user-config";
import type { MembershipAuditEntry, MembershipRecord, OrgRecord, TokenRecord, UsageRecord, UserRecord } from "./records";

/**
 * What the admin use cases need of persistence; `store/` implements these over MikroORM and the
 * unit specs over arrays. Writes take effect when they resolve (inside a transaction: when it commits).
 */

/** Organizations. */
export interface OrgRepository {
  find(orgId: string): Promise<OrgRecord | null>;
  /** The orgs the user is a member of, oldest first. */
  ofUser(userId: string): Promise<OrgRecord[]>;
  add(org: OrgRecord): Promise<void>;
  /**
   * Locks the org until the transaction ends, so that membership changes of one org happen one at
   * a time: two owners removing each other at once must not leave the org without an owner.
   */
  lock(orgId: string): Promise<void>;
}

/** Users. */
export interface UserRepository {
  find(userId: string): Promise<UserRecord | null>;
  byIds(userIds: readonly string[]): Promise<UserRecord[]>;
  count(): Promise<number>;
  add(user: UserRecord): Promise<void>;
  /** Creates the user unless one with its id exists, so that concurrent first creations both succeed. */
  addIfAbsent(user: UserRecord): Promise<void>;
  /** Deletes the user with its memberships and tokens. */
  delete(userId: string): Promise<void>;
}

/** Memberships of users in orgs, and their audit trail. */
export interface MembershipRepository {
  find(orgId: string, userId: string): Promise<MembershipRecord | null>;
  /** The user's memberships, oldest first. */
  ofUser(userId: string): Promise<MembershipRecord[]>;
  /** The org's memberships, oldest first. */
  ofOrg(orgId: string): Promise<MembershipRecord[]>;
  add(membership: MembershipRecord): Promise<void>;
  /** Adds the membership unless the user already belongs to the org. */
  addIfAbsent(membership: MembershipRecord): Promise<void>;
  setRoles(orgId: string, userId: string, roles: string[]): Promise<void>;
  remove(orgId: string, userId: string): Promise<void>;
  /** Records a membership change in the audit trail. */
  audit(entry: MembershipAuditEntry): Promise<void>;
  /** Whether the audit trail records the user's removal from the org (it was a member once). */
  wasRemoved(orgId: string, userId: string): Promise<boolean>;
}

/** API tokens. */
export interface TokenRepository {
  find(tokenId: string): Promise<TokenRecord | null>;
  findByHash(secretHash: string): Promise<TokenRecord | null>;
  /** The user's tokens, oldest first. */
  ofUser(userId: string): Promise<TokenRecord[]>;
  add(token: TokenRecord): Promise<void>;
  setEnabled(tokenId: string, enabled: boolean): Promise<void>;
  remove(tokenId: string): Promise<void>;
  /** Stamps the token as used, at most once a minute, so authentication does not write on every call. */
  touch(tokenId: string): Promise<void>;
}

/** Usage counters of orgs. */
export interface UsageRepository {
  /** The org's counters, by resource name. */
  ofOrg(orgId: string): Promise<UsageRecord[]>;
  /** Adds `delta` to a counter, creating it at zero first. */
  add(orgId: string, resourceName: string, delta: number): Promise<void>;
}

/** Every repository of the admin service, as one unit of work binds them. */
export interface AdminRepositories {
  orgs: OrgRepository;
  users: UserRepository;
  memberships: MembershipRepository;
  tokens: TokenRepository;
  usage: UsageRepository;
  notifications: NotificationRepository;
  userConfig: UserConfigRepository;
  credentialRequests: CredentialRequestRepository;
}

/** The admin service's unit of work, built in `index.ts` and handed to `rpc/` and start-up. */
export type AdminUnitOfWork = UnitOfWork<AdminRepositories>;
