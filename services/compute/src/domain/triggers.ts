import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import {
  createFieldCatalog,
  globToRegex,
  invalidArgument,
  parseConditionJson,
  planSearch,
  type QuerySpecInput,
  type SearchPlan,
  quoteValue,
} from "@hangar/shared";
import { checkTimeout } from "./compute-defaults";
import { resolveInvocableAction, resolveParameterValues } from "./invoke";
import type { ActionRepository } from "./repositories";

/** The longest trigger name (the spec's limit). */
export const MAX_TRIGGER_NAME_LENGTH = 256;

// The spec's `[\w\-]+` over the whole name, with Python's Unicode `\w` (the client SDK's language).
const TRIGGER_NAME_PATTERN = /^[\p{L}\p{M}\p{N}\p{Pc}-]+$/u;

/** One invocation per dataset, or one per file. */
export const FOR_EACH = ["dataset", "dataset_file"] as const;

/**
 * The events a trigger may react to (the client SDK's TriggerEvaluationCause without
 * `recurring_schedule`, which only the platform's scheduled triggers use).
 */
export const TRIGGER_CAUSES = ["file_upload", "file_ingest", "dataset_metadata_update", "file_metadata_update"] as const;

/** What a trigger reacts to when it names no causes: new files. */
export const DEFAULT_CAUSES: readonly string[] = ["file_upload"];

/** A trigger's settings as stored: what create sets and update edits. */
export interface TriggerSettings {
  actionName: string;
  /** The org that owns the action. */
  actionOwnerId: string;
  /** A pinned digest, or null for the action's current one. */
  actionDigest: string | null;
  requiredInputs: string[];
  additionalInputs: string[];
  causes: string[];
  forEach: string;
  enabled: boolean;
  /** A validated Condition or ConditionGroup, or null. */
  condition: JsonValue | null;
  /** Complete compute requirements in the stored shape, or null for the action's. */
  computeRequirementOverrides: JsonObject | null;
  containerParameterOverrides: JsonObject | null;
  parameterValues: JsonObject;
  serviceUserId: string;
  timeout: number | null;
}

type ClearableSetting =
  | "actionOwnerId"
  | "actionDigest"
  | "additionalInputs"
  | "causes"
  | "condition"
  | "computeRequirementOverrides"
  | "containerParameterOverrides"
  | "parameterValues"
  | "serviceUserId"
  | "timeout";

/** Edits of settings: an absent key leaves the setting alone; null clears a clearable one to its default. */
export type TriggerChanges = { [K in keyof TriggerSettings]?: K extends ClearableSetting ? TriggerSettings[K] | null : TriggerSettings[K] };

/** The org a trigger lives in and its creator, who give the defaults of the action owner and the service user. */
export interface TriggerOwner {
  orgId: string;
  createdBy: string;
}

/** Checks a trigger name: required, at most 256 characters of `[\w-]`. */
export function checkTriggerName(name: string): string {
  if (name === "") throw invalidArgument("name", "is required");
  if ([...name].length > MAX_TRIGGER_NAME_LENGTH) throw invalidArgument("name", `must be at most ${MAX_TRIGGER_NAME_LENGTH} characters`);
  if (!TRIGGER_NAME_PATTERN.test(name)) throw invalidArgument("name", "may contain only letters, digits, '_' and '-'");
  return name;
}

/** The settings of a new trigger: the request's, checked, with defaults for what it leaves out. */
export function newTriggerSettings(changes: TriggerChanges, owner: TriggerOwner): TriggerSettings {
  const blank: TriggerSettings = {
    actionName: "",
    actionOwnerId: owner.orgId,
    actionDigest: null,
    requiredInputs: [],
    additionalInputs: [],
    causes: [...DEFAULT_CAUSES],
    forEach: "",
    enabled: true,
    condition: null,
    computeRequirementOverrides: null,
    containerParameterOverrides: null,
    parameterValues: {},
    serviceUserId: owner.createdBy,
    timeout: null,
  };
  // The required settings are checked even when a caller (a direct gRPC one) leaves them out.
  const requiredSettings = { actionName: changes.actionName ?? "", forEach: changes.forEach ?? "", requiredInputs: changes.requiredInputs ?? [] };
  return applyTriggerChanges(blank, { ...changes, ...requiredSettings }, owner);
}

/** Applies edits to settings, checking each edited value; a cleared setting takes its default. */
export function applyTriggerChanges(current: TriggerSettings, changes: TriggerChanges, owner: TriggerOwner): TriggerSettings {
  return {
    actionName: edit(changes.actionName, current.actionName, current.actionName, (v) => required(v, "action_name")),
    actionOwnerId: edit(changes.actionOwnerId, current.actionOwnerId, owner.orgId),
    actionDigest: edit(changes.actionDigest, current.actionDigest, null),
    requiredInputs: edit(changes.requiredInputs, current.requiredInputs, current.requiredInputs, (v) => checkPatterns(v, "required_inputs", true)),
    additionalInputs: edit(changes.additionalInputs, current.additionalInputs, [], (v) => checkPatterns(v, "additional_inputs", false)),
    causes: edit(changes.causes, current.causes, [...DEFAULT_CAUSES], checkCauses),
    forEach: edit(changes.forEach, current.forEach, current.forEach, checkForEach),
    enabled: edit(changes.enabled, current.enabled, true),
    condition: edit(changes.condition, current.condition, null, checkCondition),
    computeRequirementOverrides: edit(changes.computeRequirementOverrides, current.computeRequirementOverrides, null),
    containerParameterOverrides: edit(changes.containerParameterOverrides, current.containerParameterOverrides, null),
    parameterValues: edit(changes.parameterValues, current.parameterValues, {}),
    serviceUserId: edit(changes.serviceUserId, current.serviceUserId, owner.createdBy, (v) => required(v, "service_user_id")),
    timeout: edit(changes.timeout, current.timeout, null, (v) => checkTimeout(v, "timeout")),
  };
}

function edit<T>(change: T | null | undefined, current: T, cleared: T, check: (value: NonNullable<T>) => T = (value) => value): T {
  if (change === undefined) return current;
  return change === null ? cleared : check(change);
}

/** True when the edits touch what must be checked against the action (the reference or the parameter values). */
export function changesAction(changes: TriggerChanges): boolean {
  const keys: (keyof TriggerChanges)[] = ["actionName", "actionOwnerId", "actionDigest", "parameterValues"];
  return keys.some((key) => changes[key] !== undefined);
}

/**
 * True when the edits change what the trigger runs or as whom: anything but switching it on or off.
 * Such an edit is a new decision to run as the service user, so the editor must be allowed to make
 * it; otherwise a member could swap the action of a trigger that runs as the org's owner.
 */
export function changesWhatRuns(changes: TriggerChanges): boolean {
  return Object.entries(changes).some(([key, value]) => key !== "enabled" && value !== undefined);
}

/**
 * Checks that the org may invoke the trigger's action (404 otherwise, also for a digest it never
 * had) and that the parameter values fit the action's parameters, as invoking it would.
 */
export async function checkTriggerAction(actions: ActionRepository, orgId: string, settings: TriggerSettings): Promise<void> {
  const action = await resolveInvocableAction(actions, orgId, {
    name: settings.actionName,
    ownerOrgId: settings.actionOwnerId,
    digest: settings.actionDigest ?? undefined,
  });
  resolveParameterValues(action.definition, settings.parameterValues);
}

function required(value: string, field: string): string {
  if (value === "") throw invalidArgument(field, "is required");
  return value;
}

/**
 * Checks gitignore-style patterns with the matcher evaluation uses (non-blank, not negated: patterns
 * are inclusions only); `nonEmpty` lists need at least one.
 */
function checkPatterns(patterns: string[], field: string, nonEmpty: boolean): string[] {
  if (nonEmpty && patterns.length === 0) throw invalidArgument(field, "must list at least one pattern");
  patterns.forEach((pattern, i) => globToRegex(pattern, `${field}[${i}]`));
  return patterns;
}

function checkCauses(causes: string[]): string[] {
  causes.forEach((cause, i) => {
    if (!(TRIGGER_CAUSES as readonly string[]).includes(cause)) {
      throw invalidArgument(`causes[${i}]`, `must be one of ${TRIGGER_CAUSES.join(", ")}, got ${quoteValue(cause)}`);
    }
  });
  return causes.length === 0 ? [...DEFAULT_CAUSES] : [...new Set(causes)];
}

function checkForEach(value: string): string {
  if (!(FOR_EACH as readonly string[]).includes(value)) throw invalidArgument("for_each", `must be dataset or dataset_file, got ${quoteValue(value)}`);
  return value;
}

// Stored as parsed, so the record shows the condition in the form it is evaluated in.
function checkCondition(json: JsonValue): JsonValue | null {
  return (parseConditionJson(json, "condition") as JsonValue | undefined) ?? null;
}

/** The fields a trigger search may filter and sort on. */
export const triggerCatalog = createFieldCatalog({
  prefixes: ["trigger"],
  columns: {
    trigger_id: { sql: `"t"."trigger_id"`, type: "text", notNull: true },
    name: { sql: `"t"."name"`, type: "text", notNull: true },
    org_id: { sql: `"t"."org_id"`, type: "text", notNull: true },
    created: { sql: `"t"."created"`, type: "timestamp", notNull: true },
    created_by: { sql: `"t"."created_by"`, type: "text", notNull: true },
    modified: { sql: `"t"."modified"`, type: "timestamp", notNull: true },
    modified_by: { sql: `"t"."modified_by"`, type: "text", notNull: true },
    enabled: { sql: `"t"."enabled"`, type: "boolean", notNull: true },
    for_each: { sql: `"t"."for_each"`, type: "text", notNull: true },
    action_name: { sql: `"t"."action_name"`, type: "text", notNull: true },
    "action.name": { sql: `"t"."action_name"`, type: "text", notNull: true },
    "action.owner": { sql: `"t"."action_owner_id"`, type: "text", notNull: true },
    "action.digest": { sql: `"t"."action_digest"`, type: "text" },
    service_user_id: { sql: `"t"."service_user_id"`, type: "text", notNull: true },
    causes: { sql: `"t"."causes"`, type: "text[]", notNull: true },
    required_inputs: { sql: `"t"."required_inputs"`, type: "text[]", notNull: true },
  },
  jsonColumns: { parameter_values: `"t"."parameter_values"` },
});

/**
 * Validates a QuerySpecification and compiles it into a search of one org's triggers (limit
 * default 1000, sort default `created` DESC).
 */
export function planTriggerSearch(spec: QuerySpecInput): SearchPlan {
  return planSearch(spec, { catalog: triggerCatalog, tieBreaker: `"t"."trigger_id"`, scope: "triggers" });
}

/**
 * Reads the `trigger_type` of an evaluation listing: absent or `event_driven` (a trigger's
 * evaluations), or `scheduled` (a scheduled trigger's history, its dispatches); other values are 400s.
 */
export function evaluationListingKind(triggerType: string | undefined): "event_driven" | "scheduled" {
  if (triggerType === undefined || triggerType === "event_driven" || triggerType === "scheduled") return triggerType ?? "event_driven";
  throw invalidArgument("trigger_type", `must be event_driven or scheduled, got ${quoteValue(triggerType)}`);
}
