import type { CredentialRequestRecord } from "./credential-requests";
import { snapshotUnitOfWork } from "@hangar/shared";
import type { MembershipAuditEntry, MembershipRecord, OrgRecord, TokenRecord, UsageRecord, UserRecord } from "./records";
import type { JsonValue } from "@bufbuild/protobuf";
import type { NotificationRecord } from "./notifications";
import type { AdminRepositories, AdminUnitOfWork } from "./repositories";

/** Everything the in-memory admin repositories hold; specs seed it and read it back. */
export interface AdminState {
  orgs: OrgRecord[];
  users: UserRecord[];
  memberships: MembershipRecord[];
  tokens: TokenRecord[];
  usage: UsageRecord[];
  audit: MembershipAuditEntry[];
  /** Every org locked, in order: specs check that membership changes hold the org's lock. */
  locks: string[];
  /** Token ids stamped as used. */
  touched: string[];
  notifications: NotificationRecord[];
  /** Users' configuration values, by `<user id> <key>`. */
  userConfig: Record<string, JsonValue>;
  credentialRequests: CredentialRequestRecord[];
}

/** An admin unit of work over arrays and the state behind it, for unit specs of domain rules (no database). */
export interface InMemoryAdmin {
  uow: AdminUnitOfWork;
  state: AdminState;
}

/**
 * Builds the in-memory admin repositories from `seed`. Records go in and out as copies, as rows
 * of a database would; a transaction that throws leaves the state as it was (all or nothing).
 */
export function inMemoryAdmin(seed: Partial<AdminState> = {}): InMemoryAdmin {
  const state: AdminState = { orgs: [], users: [], memberships: [], tokens: [], usage: [], audit: [], locks: [], touched: [], notifications: [], userConfig: {}, credentialRequests: [], ...structuredClone(seed) };
  const uow: AdminUnitOfWork = snapshotUnitOfWork(state, bind);
  return { uow, state };
}

const copy = <T>(value: T): T => structuredClone(value);
const one = async <T>(rows: T[], match: (row: T) => boolean): Promise<T | null> => copy(rows.find(match) ?? null);
const byCreated = <T extends { created: Date }>(rows: T[]): T[] => copy(rows).sort((a, b) => a.created.getTime() - b.created.getTime());

function bind(s: AdminState): AdminRepositories {
  return {
    orgs: {
      find: (orgId) => one(s.orgs, (o) => o.orgId === orgId),
      ofUser: async (userId) => byCreated(s.orgs.filter((o) => s.memberships.some((m) => m.orgId === o.orgId && m.userId === userId))),
      add: async (org) => void s.orgs.push(copy(org)),
      lock: async (orgId) => void s.locks.push(orgId),
    },
    users: {
      find: (userId) => one(s.users, (u) => u.userId === userId),
      byIds: async (ids) => copy(s.users.filter((u) => ids.includes(u.userId))),
      count: async () => s.users.length,
      add: async (user) => void s.users.push(copy(user)),
      addIfAbsent: async (user) => void (s.users.some((u) => u.userId === user.userId) || s.users.push(copy(user))),
      delete: async (userId) => {
        s.users = s.users.filter((u) => u.userId !== userId);
        s.memberships = s.memberships.filter((m) => m.userId !== userId);
        s.tokens = s.tokens.filter((t) => t.userId !== userId);
      },
    },
    memberships: membershipsOf(s),
    tokens: {
      find: (tokenId) => one(s.tokens, (t) => t.tokenId === tokenId),
      findByHash: (hash) => one(s.tokens, (t) => t.secretHash === hash),
      ofUser: async (userId) => byCreated(s.tokens.filter((t) => t.userId === userId)),
      add: async (token) => void s.tokens.push(copy(token)),
      setEnabled: async (tokenId, enabled) => void s.tokens.filter((t) => t.tokenId === tokenId).forEach((t) => (t.enabled = enabled)),
      remove: async (tokenId) => void (s.tokens = s.tokens.filter((t) => t.tokenId !== tokenId)),
      touch: async (tokenId) => void s.touched.push(tokenId),
    },
    usage: {
      ofOrg: async (orgId) => copy(s.usage.filter((u) => u.orgId === orgId)),
      add: async (orgId, resourceName, delta) => {
        const row = s.usage.find((u) => u.orgId === orgId && u.resourceName === resourceName);
        if (row) row.quantity = String(BigInt(row.quantity) + BigInt(delta));
        else s.usage.push({ orgId, resourceName, quantity: String(delta) });
      },
    },
    notifications: notificationsOf(s),
    userConfig: {
      get: async (userId, key) => copy(s.userConfig[`${userId} ${key}`]),
      set: async (userId, key, value) => void (s.userConfig[`${userId} ${key}`] = copy(value)),
    },
    credentialRequests: {
      add: async (request) => void s.credentialRequests.push(copy(request)),
      lock: async (id) => copy(s.credentialRequests.find((r) => r.credentialRequestId === id) ?? null),
      update: async (id, changes) => void Object.assign(s.credentialRequests.find((r) => r.credentialRequestId === id)!, changes),
      removeExpired: async (before) => void (s.credentialRequests = s.credentialRequests.filter((r) => r.expires >= before)),
    },
  };
}

// Found records are copies here: specs read changes back from the state, not through found records.
function notificationsOf(s: AdminState): AdminRepositories["notifications"] {
  const newestFirst = (rows: NotificationRecord[]) => byCreated(rows).reverse();
  return {
    find: (userId, id) => one(s.notifications, (n) => n.userId === userId && n.notificationId === id),
    insert: async (record) => {
      if (s.notifications.some((n) => n.sourceEventId === record.sourceEventId && n.userId === record.userId)) return false;
      s.notifications.push(copy(record));
      return true;
    },
    remove: (record) => void (s.notifications = s.notifications.filter((n) => n.notificationId !== record.notificationId)),
    list: async (filter, range) => {
      const rows = newestFirst(s.notifications.filter((n) => n.userId === filter.userId && (!filter.orgId || n.orgId === filter.orgId)));
      return { rows: rows.slice(0, range.limit), keys: rows.slice(0, range.limit).map((_, i) => i + 1), hasMore: rows.length > range.limit, total: rows.length };
    },
    claimPendingEmails: async (limit) => copy(s.notifications.filter((n) => n.emailPending).slice(0, limit)),
  };
}

function membershipsOf(s: AdminState): AdminRepositories["memberships"] {
  const is = (orgId: string, userId: string) => (m: MembershipRecord) => m.orgId === orgId && m.userId === userId;
  return {
    find: (orgId, userId) => one(s.memberships, is(orgId, userId)),
    ofUser: async (userId) => byCreated(s.memberships.filter((m) => m.userId === userId)),
    ofOrg: async (orgId) => byCreated(s.memberships.filter((m) => m.orgId === orgId)),
    add: async (membership) => void s.memberships.push(copy(membership)),
    addIfAbsent: async (membership) => void (s.memberships.some(is(membership.orgId, membership.userId)) || s.memberships.push(copy(membership))),
    setRoles: async (orgId, userId, roles) => void s.memberships.filter(is(orgId, userId)).forEach((m) => (m.roles = [...roles])),
    remove: async (orgId, userId) => void (s.memberships = s.memberships.filter((m) => !is(orgId, userId)(m))),
    audit: async (entry) => void s.audit.push(copy(entry)),
    wasRemoved: async (orgId, userId) => s.audit.some((e) => e.orgId === orgId && e.userId === userId && e.action === "removed"),
  };
}

const T0 = Date.UTC(2026, 0, 1);

/** An org created at the `n`th second of the specs' clock. */
export function orgAt(orgId: string, n = 0): OrgRecord {
  return { orgId, name: orgId, tier: "free", status: "active", created: new Date(T0 + n * 1000), createdBy: "admin" };
}

/** A user created at the `n`th second of the specs' clock. */
export function userAt(userId: string, n = 0, extra: Partial<UserRecord> = {}): UserRecord {
  return { userId, name: null, isServiceUser: false, isSystemAdmin: false, created: new Date(T0 + n * 1000), createdBy: "admin", ...extra };
}

/** A membership created at the `n`th second of the specs' clock. */
export function memberAt(orgId: string, userId: string, roles: string[], n = 0): MembershipRecord {
  return { orgId, userId, roles, created: new Date(T0 + n * 1000) };
}
