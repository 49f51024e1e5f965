import type { JsonObject } from "@bufbuild/protobuf";

/** An ingestion rule (the client SDK's IngestionRuleRecord). */
export interface IngestionRuleRecord {
  ruleId: string;
  orgId: string;
  /** Unique in the org. */
  name: string;
  description: string | null;
  includePatterns: string[];
  excludePatterns: string[];
  /** An ActionInvocationSpec in its stored (wire) shape, or null on a rule that does not auto-ingest. */
  invocation: JsonObject | null;
  autoIngest: boolean;
  /** The managed trigger; null while the rule has no invocation. */
  triggerId: string | null;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** The latest run of a rule's trigger on a file: its dispatch, and its invocation's status when it started one. */
export interface RuleRunRow {
  fileId: string;
  ruleId: string;
  triggerId: string;
  claimedAt: Date;
  /** The dispatch's `claimed`, `dispatched` or `failed`. */
  dispatchStatus: string;
  dispatchDetail: string | null;
  invocationId: string | null;
  /** The invocation's last status and its detail, when there is an invocation. */
  invocationStatus: number | null;
  invocationDetail: string | null;
}

/** The org's ingestion rules and their runs. */
export interface IngestionRuleRepository {
  /** A rule of the org; with `lock`, locked for update (in a transaction). */
  find(orgId: string, ruleId: string, lock?: boolean): Promise<IngestionRuleRecord | null>;
  /** Every rule of the org, oldest first (match_paths and the upload path read them all). */
  ofOrg(orgId: string): Promise<IngestionRuleRecord[]>;
  /** A page of the org's rules, oldest first, after the keyset `(created, rule_id)` of `after`. */
  page(orgId: string, limit: number, after: { created: string; ruleId: string } | undefined): Promise<{ rows: IngestionRuleRecord[]; total: number }>;
  /** Inserts a rule; false, writing nothing, when the org already has a rule of that name. */
  insert(record: IngestionRuleRecord): Promise<boolean>;
  remove(record: IngestionRuleRecord): void;
  /** True once the org was given the default rules. */
  seeded(orgId: string): Promise<boolean>;
  /** Marks the org given the defaults; false when it already was (another replica got there first). */
  markSeeded(orgId: string): Promise<boolean>;
  /** The latest run per file among the org's rule triggers (files with none are absent). */
  latestRuns(orgId: string, fileIds: string[]): Promise<RuleRunRow[]>;
  /** Up to `limit` orgs whose rules' path patterns are still to be sent once (migration 0011). */
  orgsToResendPaths(limit: number): Promise<string[]>;
  /** The org's patterns were sent: it leaves the list of `orgsToResendPaths`. */
  pathsResent(orgId: string): Promise<void>;
}
