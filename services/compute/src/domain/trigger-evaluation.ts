import type { JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { matchesAnyGlob, permissionDenied, planKeysetPage, runsAsRefusal, type KeysetPage, type UserDirectory } from "@hangar/shared";
import type { InvocationRequest } from "./invoke";
import type { TriggerSettings } from "./triggers";

/** Why an evaluation invoked nothing (the client SDK's TriggerEvaluationOutcomeReason). */
export type SkipReason = "already_run" | "condition_not_met" | "no_matching_files" | "trigger_disabled";

/** How an evaluation ended. */
export type EvaluationOutcome = { outcome: "invoked_action"; reason: null } | { outcome: "skipped"; reason: SkipReason };

/**
 * The causes that start evaluations: an upload completing, a dataset's fields changing, a file's
 * record being edited or marked ingested.
 */
export const FILE_UPLOAD_CAUSE = "file_upload";
export const DATASET_METADATA_UPDATE_CAUSE = "dataset_metadata_update";
export const FILE_METADATA_UPDATE_CAUSE = "file_metadata_update";
export const FILE_INGEST_CAUSE = "file_ingest";

/** A trigger as evaluation reads it. */
export interface EvaluatedTrigger extends TriggerSettings {
  triggerId: string;
  orgId: string;
  /** Who last named the service user; they must still be allowed to have the trigger run as it. */
  serviceUserGrantedBy: string;
}

/**
 * The most files a `dataset_file` trigger considers when a dataset's fields change (its matching
 * files, oldest first): a change to a huge dataset must not fan out without bound.
 */
export const MAX_OCCASION_FILES = 1000;

/** A file an occasion concerns. */
export interface OccasionFile {
  fileId: string;
  relativePath: string;
}

/**
 * What starts the evaluation of a dataset's triggers: an upload into it, a change to its fields,
 * or a change to one of its files.
 */
export type EvaluationOccasion = { orgId: string; datasetId: string } & (
  | { cause: typeof FILE_UPLOAD_CAUSE; transactionId: string; files: OccasionFile[] }
  | { cause: typeof DATASET_METADATA_UPDATE_CAUSE; eventId: string }
  | { cause: typeof FILE_METADATA_UPDATE_CAUSE | typeof FILE_INGEST_CAUSE; eventId: string; file: OccasionFile }
);

/** The key that makes an occasion evaluated once per trigger: the transaction, or the change event. */
export function occasionKey(occasion: EvaluationOccasion): string {
  return occasion.cause === FILE_UPLOAD_CAUSE ? occasion.transactionId : `${occasion.cause}:${occasion.eventId}`;
}

/** The files a `dataset_file` trigger considers on an occasion, before its patterns and condition. */
async function occasionFiles(occasion: EvaluationOccasion, patterns: string[], data: TriggerDataQueries): Promise<OccasionFile[]> {
  switch (occasion.cause) {
    case FILE_UPLOAD_CAUSE:
      return occasion.files.filter((f) => matchesAnyGlob(patterns, f.relativePath));
    case FILE_METADATA_UPDATE_CAUSE:
    case FILE_INGEST_CAUSE:
      return matchesAnyGlob(patterns, occasion.file.relativePath) ? [occasion.file] : [];
    case DATASET_METADATA_UPDATE_CAUSE:
      return data.filesMatching(occasion.datasetId, patterns);
  }
}

/**
 * What evaluation asks the data service, whose query engine decides. (An upload's own files are
 * matched here, with the shared gitignore-style matcher the data service's listings use.)
 */
export interface TriggerDataQueries {
  /** True when an available file of the dataset matches the gitignore-style pattern. */
  anyFileMatches(datasetId: string, pattern: string): Promise<boolean>;
  /** The available files of the dataset matching any of the patterns, oldest first (at most MAX_OCCASION_FILES). */
  filesMatching(datasetId: string, patterns: string[]): Promise<OccasionFile[]>;
  datasetMeets(datasetId: string, condition: JsonValue): Promise<boolean>;
  fileMeets(fileId: string, condition: JsonValue): Promise<boolean>;
}

/** Everything evaluation reads. */
export interface EvaluationSources {
  data: TriggerDataQueries;
  /** The ids among `idempotencyIds` that already have an invocation in the trigger's org. */
  invoked(idempotencyIds: string[]): Promise<Set<string>>;
  /** The users the service-user re-check reads (their current memberships and roles). */
  users: UserDirectory;
}

/** What an evaluation decided: skip for a reason, or create these invocations. */
export type EvaluationPlan = { skip: SkipReason } | { invoke: InvocationRequest[] };

/**
 * Decides what a trigger does about an occasion (an upload, or a change to the dataset's fields). A `dataset` trigger fires once per dataset, when
 * every required pattern matches some available file of the dataset (not only this upload's) and
 * the dataset meets the condition. A `dataset_file` trigger fires once per file that matches any
 * required pattern and meets the condition: an upload's new files, the file that changed, or, when
 * the dataset's fields change, its matching files. Idempotency ids make each firing happen once however often the
 * dataset is evaluated.
 */
export async function planEvaluation(trigger: EvaluatedTrigger, occasion: EvaluationOccasion, sources: EvaluationSources): Promise<EvaluationPlan> {
  if (!trigger.enabled) return { skip: "trigger_disabled" };
  await requireServiceUser(trigger, sources.users);
  return trigger.forEach === "dataset_file" ? planPerFile(trigger, occasion, sources) : planPerDataset(trigger, occasion, sources);
}

/**
 * Re-checks, as of now, the decision to run as the trigger's service user made when it was named:
 * the service user must still be a member of the org, and whoever named it must still be allowed
 * to (itself, or an owner or admin of the org). A refusal is PERMISSION_DENIED: the evaluation
 * fails with the reason as its detail, invokes nothing, and is not retried.
 */
export async function requireServiceUser(trigger: Pick<EvaluatedTrigger, "orgId" | "serviceUserId" | "serviceUserGrantedBy">, users: UserDirectory): Promise<void> {
  const runsAs = await users(trigger.serviceUserId);
  const grantedBy = trigger.serviceUserGrantedBy;
  // A deleted grantor holds no roles any more: it counts as a member of no org.
  const grantor = (grantedBy === trigger.serviceUserId ? runsAs : await users(grantedBy)) ?? { userId: grantedBy, memberships: [], isSystemAdmin: false };
  const refusal = runsAsRefusal(grantor, trigger.orgId, runsAs);
  if (refusal !== undefined) throw permissionDenied("service_user_id", `the trigger may no longer run as '${trigger.serviceUserId}': ${refusal}`);
}

async function planPerDataset(trigger: EvaluatedTrigger, occasion: EvaluationOccasion, sources: EvaluationSources): Promise<EvaluationPlan> {
  const key = idempotencyId(trigger, occasion.datasetId);
  if ((await sources.invoked([key])).size > 0) return { skip: "already_run" };
  const present = await Promise.all(trigger.requiredInputs.map((pattern) => sources.data.anyFileMatches(occasion.datasetId, pattern)));
  if (!present.every(Boolean)) return { skip: "no_matching_files" };
  if (trigger.condition !== null && !(await sources.data.datasetMeets(occasion.datasetId, trigger.condition))) return { skip: "condition_not_met" };
  return { invoke: [invocationOf(trigger, occasion.datasetId, key, [...trigger.requiredInputs, ...trigger.additionalInputs])] };
}

async function planPerFile(trigger: EvaluatedTrigger, occasion: EvaluationOccasion, sources: EvaluationSources): Promise<EvaluationPlan> {
  const candidates = await occasionFiles(occasion, trigger.requiredInputs, sources.data);
  if (candidates.length === 0) return { skip: "no_matching_files" };
  const invoked = await sources.invoked(candidates.map((f) => idempotencyId(trigger, f.fileId)));
  const fresh = candidates.filter((f) => !invoked.has(idempotencyId(trigger, f.fileId)));
  if (fresh.length === 0) return { skip: "already_run" };
  const condition = trigger.condition;
  const meets = condition === null ? fresh.map(() => true) : await Promise.all(fresh.map((f) => sources.data.fileMeets(f.fileId, condition)));
  const firing = fresh.filter((_, i) => meets[i]);
  if (firing.length === 0) return { skip: "condition_not_met" };
  return {
    invoke: firing.map((f) => invocationOf(trigger, occasion.datasetId, idempotencyId(trigger, f.fileId), [f.relativePath, ...trigger.additionalInputs])),
  };
}

/** The outcome of a carried-out plan: invoking nothing new (another evaluation won the race) is `already_run`. */
export function outcomeOf(plan: EvaluationPlan, created: number): EvaluationOutcome {
  if ("skip" in plan) return { outcome: "skipped", reason: plan.skip };
  return created > 0 ? { outcome: "invoked_action", reason: null } : { outcome: "skipped", reason: "already_run" };
}

/** One firing per trigger and dataset (or file): `trigger:<trigger_id>:<dataset or file id>`. */
function idempotencyId(trigger: EvaluatedTrigger, sourceId: string): string {
  return `trigger:${trigger.triggerId}:${sourceId}`;
}

function invocationOf(trigger: EvaluatedTrigger, datasetId: string, key: string, inputData: string[]): InvocationRequest {
  return {
    orgId: trigger.orgId,
    submitter: trigger.serviceUserId,
    action: { name: trigger.actionName, ownerOrgId: trigger.actionOwnerId, digest: trigger.actionDigest ?? undefined },
    dataSource: { type: "Dataset", id: datasetId },
    inputData,
    idempotencyId: key,
    computeRequirementOverrides: trigger.computeRequirementOverrides,
    containerParameterOverrides: trigger.containerParameterOverrides,
    parameterValues: trigger.parameterValues,
    timeout: trigger.timeout ?? undefined,
    source: { type: "Trigger", id: trigger.triggerId },
  };
}

// Refusals that another attempt would meet again: the trigger or the data must change first.
const PERMANENT_CODES = new Set([Code.InvalidArgument, Code.NotFound, Code.FailedPrecondition, Code.PermissionDenied, Code.AlreadyExists, Code.OutOfRange]);

/**
 * True when an evaluation error is a refusal (a condition the data service rejects, a deleted
 * dataset or action, parameters the action no longer accepts) rather than an outage: retrying
 * the event cannot help, so the evaluation just stays `failed`.
 */
export function isPermanentFailure(error: unknown): boolean {
  return error instanceof ConnectError && PERMANENT_CODES.has(error.code);
}

/** The `status_detail` of a failed evaluation. */
export function failureDetail(error: unknown): string {
  if (error instanceof ConnectError) return error.rawMessage;
  return error instanceof Error ? error.message : String(error);
}

/** Evaluations a page holds when a listing names no `limit`. */
export const DEFAULT_EVALUATION_LIMIT = 100;

/**
 * Reads `limit` (default 100; 1 to 1000, larger ones clamped) and `page_token` of an evaluation
 * listing, newest first; `scope` (the trigger or dataset) binds a token to its listing.
 */
export function planEvaluationPage(limit: bigint | undefined, pageToken: string | undefined, scope: string): KeysetPage {
  return planKeysetPage(limit, pageToken, scope, { sizeField: "limit", defaultSize: DEFAULT_EVALUATION_LIMIT });
}
