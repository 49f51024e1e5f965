import { administers, invalidArgument, type Logger, type Principal, type UnitOfWork } from "@hangar/shared";
import type { IngestionRuleRecord } from "./ingestion-rule-records";
import { rulePathMatches } from "./ingestion-rule-paths";
import { ingestFile, type RuleFiringDeps } from "./ingestion-runs";
import type { IngestionRuleRepositories } from "./repositories";

/** Counting stops at this many files (the report's `count_is_lower_bound`), and a job ingests at most this many. */
export const EXISTING_FILES_CAP = 1000;
/** Files scanned per report at most: a report over a huge org answers in bounded time, as a lower bound. */
export const EXISTING_FILES_SCAN = 20_000;
/** Paths a report samples (the SDK: up to 10). */
export const SAMPLE_PATHS = 10;

/** One available file of an org not yet ingested. */
export interface CandidateFile {
  fileId: string;
  relativePath: string;
}

/** The org's files not yet ingested, a page at a time, oldest first (the data service's query_files), and their sessions. */
export interface UningestedFiles {
  page(orgId: string, pageToken: string | undefined): Promise<{ files: CandidateFile[]; nextToken: string | undefined }>;
  /** How many of the org's complete sessions hold any of these files (the data service's count). */
  completeSessions(orgId: string, fileIds: readonly string[]): Promise<number>;
}

/** The files a rule would take, and whether there may be more (the scan or the count hit its cap). */
export interface ExistingFiles {
  files: CandidateFile[];
  lowerBound: boolean;
}

/** The report (the SDK's ExistingFilesPreview): paths only for an org admin. */
export interface ExistingFilesReport {
  count: number;
  countIsLowerBound: boolean;
  samplePaths: string[];
  completeSessionCount: number;
}

/**
 * The files a rule matches that are not ingested and that no rule's trigger has run on (uploaded
 * before the rule existed, or while auto-ingest was off), scanning the org's not-ingested files
 * oldest first until EXISTING_FILES_CAP matches or EXISTING_FILES_SCAN files.
 */
export async function existingFiles(uow: UnitOfWork<IngestionRuleRepositories>, source: UningestedFiles, rule: IngestionRuleRecord): Promise<ExistingFiles> {
  const files: CandidateFile[] = [];
  let scanned = 0;
  let token: string | undefined;
  do {
    const page = await source.page(rule.orgId, token);
    scanned += page.files.length;
    token = page.nextToken;
    const matching = page.files.filter((file) => rulePathMatches(rule, file.relativePath));
    const run = new Set((await uow.repositories().ingestionRules.latestRuns(rule.orgId, matching.map((f) => f.fileId))).map((r) => r.fileId));
    files.push(...matching.filter((file) => !run.has(file.fileId)));
  } while (token !== undefined && files.length < EXISTING_FILES_CAP && scanned < EXISTING_FILES_SCAN);
  return { files: files.slice(0, EXISTING_FILES_CAP), lowerBound: token !== undefined || files.length > EXISTING_FILES_CAP };
}

/**
 * The report of a rule's existing files for a caller: the files, and the complete sessions holding
 * any of them (ingesting them announces those sessions as ingested again).
 */
export async function reportOf(source: UningestedFiles, found: ExistingFiles, caller: Principal, orgId: string): Promise<ExistingFilesReport> {
  return {
    count: found.files.length,
    countIsLowerBound: found.lowerBound,
    samplePaths: administers(caller, orgId) ? found.files.slice(0, SAMPLE_PATHS).map((f) => f.relativePath) : [],
    completeSessionCount: await source.completeSessions(orgId, found.files.map((f) => f.fileId)),
  };
}

/** Background work the service runs after answering, awaited when it stops. */
export interface BackgroundJobs {
  start(name: string, work: () => Promise<void>): void;
  /** Waits for the jobs under way. */
  drain(): Promise<void>;
}

/** Background jobs that log a failure instead of losing it. */
export function backgroundJobs(logger: Logger): BackgroundJobs {
  const running = new Set<Promise<void>>();
  return {
    start(name, work) {
      const job = work()
        .catch((error: unknown) => logger.error({ job: name, err: error }, "background job failed"))
        .finally(() => running.delete(job));
      running.add(job);
    },
    async drain() {
      await Promise.all([...running]);
    },
  };
}

/**
 * ingest_existing_files: answers the report now and ingests those files in a background job,
 * each as ingest_files_now would with this rule (a dispatch of its trigger). The rule must
 * auto-ingest: its trigger is what runs.
 */
export async function ingestExistingFiles(deps: RuleFiringDeps, source: UningestedFiles, jobs: BackgroundJobs, caller: Principal, rule: IngestionRuleRecord): Promise<ExistingFilesReport> {
  if (!rule.autoIngest || rule.triggerId === null) throw invalidArgument("rule_id", "the rule does not auto-ingest: turn its auto_ingest on to ingest existing files");
  const found = await existingFiles(deps.uow, source, rule);
  jobs.start(`ingest-existing:${rule.ruleId}`, async () => {
    for (const file of found.files) await ingestFile(deps, rule.orgId, [rule], file.fileId);
  });
  return reportOf(source, found, caller, rule.orgId);
}
