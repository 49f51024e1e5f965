import type { UnitOfWork } from "@hangar/shared";
import type { IngestionRuleRecord } from "./ingestion-rule-records";
import { effectiveExcludes, rulePathMatches, type PathRule } from "./ingestion-rule-paths";
import type { IngestionRuleRepositories } from "./repositories";

/** A file an upload made available, at the version it made. */
export interface UploadedFileVersion {
  fileId: string;
  relativePath: string;
  version: bigint;
}

/** Where file versions are marked ingestable: the data service, which keeps the files. */
export interface IngestableMarks {
  mark(orgId: string, files: readonly { fileId: string; version: bigint }[]): Promise<void>;
}

/**
 * Where the org's rules' path patterns are kept beside its files: the data service, which decides a
 * file's `ingestable` again from them when its path changes, and for every file when they change.
 */
export interface RulePathsReplica {
  send(orgId: string, rules: readonly PathRule[], asOf: Date): Promise<void>;
}

/** A rule whose trigger runs on uploads: the rules that make a file ingestable. */
export function autoIngesting(rule: IngestionRuleRecord): boolean {
  return rule.autoIngest && rule.triggerId !== null;
}

/**
 * Sends the org's auto-ingesting rules' patterns (each rule's excludes as it applies them) to the
 * data service, read after the change that calls it committed; `asOf`, taken before the read, lets
 * the data service keep the later of two readings that arrive out of order.
 */
export async function sendRulePaths(uow: UnitOfWork<IngestionRuleRepositories>, replica: RulePathsReplica, orgId: string): Promise<void> {
  const asOf = new Date();
  const rules = (await uow.repositories().ingestionRules.ofOrg(orgId)).filter(autoIngesting);
  await replica.send(orgId, rules.map((rule) => ({ includePatterns: rule.includePatterns, excludePatterns: effectiveExcludes(rule) })), asOf);
}

/** Orgs read from the resend list at a time. */
const RESEND_BATCH = 100;

/**
 * Sends, once, the patterns of every org whose rules predate the data service keeping them (the
 * list migration 0011 wrote). An org leaves the list only after its patterns were sent, so a run
 * that fails part way is taken up where it stopped. Returns how many orgs it sent.
 */
export async function resendRulePaths(uow: UnitOfWork<IngestionRuleRepositories>, replica: RulePathsReplica): Promise<number> {
  let sent = 0;
  for (let orgs = await uow.repositories().ingestionRules.orgsToResendPaths(RESEND_BATCH); orgs.length > 0; orgs = await uow.repositories().ingestionRules.orgsToResendPaths(RESEND_BATCH)) {
    for (const orgId of orgs) {
      await sendRulePaths(uow, replica, orgId);
      await uow.repositories().ingestionRules.pathsResent(orgId);
    }
    sent += orgs.length;
  }
  return sent;
}

/** File versions one mark names at most (the data service's request limit). */
const MARK_BATCH = 1000;

/**
 * Marks the files of an upload into a dataset that an auto-ingesting rule of the org matches (a
 * rule whose trigger runs on the upload) as ingestable at the uploaded version: FileRecord's
 * `ingestable`, which the data service then reads from the file's own row. The rules are read once
 * for the whole upload.
 */
export async function markIngestableUploads(uow: UnitOfWork<IngestionRuleRepositories>, marks: IngestableMarks, orgId: string, files: readonly UploadedFileVersion[]): Promise<void> {
  const rules = (await uow.repositories().ingestionRules.ofOrg(orgId)).filter(autoIngesting);
  const matched = files.filter((file) => rules.some((rule) => rulePathMatches(rule, file.relativePath)));
  for (let i = 0; i < matched.length; i += MARK_BATCH) {
    await marks.mark(orgId, matched.slice(i, i + MARK_BATCH).map(({ fileId, version }) => ({ fileId, version })));
  }
}
