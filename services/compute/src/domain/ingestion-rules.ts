import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { conflict, invalidArgument, newId, notFound, quoteValue, type Principal, type UnitOfWork } from "@hangar/shared";
import { removeTrigger } from "./entity-deletions";
import type { IngestionRuleRecord } from "./ingestion-rule-records";
import { sendRulePaths, type RulePathsReplica } from "./ingestable-files";
import { checkPatterns, effectiveExcludes } from "./ingestion-rule-paths";
import { checkTargets, legacyBlank, type TriggerModelDeps } from "./manage-trigger-model";
import { ruleOwner } from "./managed-triggers";
import type { TriggerRecord } from "./records";
import type { IngestionRuleRepositories } from "./repositories";
import { parseSource, parseTarget, sourceJson } from "./trigger-definition";

/** What the rule operations run on: the trigger model's deps over the rule repositories. */
export interface IngestionRuleDeps extends Omit<TriggerModelDeps, "uow" | "activeTriggerLimit"> {
  uow: UnitOfWork<IngestionRuleRepositories>;
  /** Told the org's rules after every change (files' `ingestable` follows them). */
  rulePaths: RulePathsReplica;
}

/** Longest rule name (the SDK states none; the trigger names' bound). */
export const MAX_RULE_NAME = 256;

/**
 * A rule's trigger fires once per upload of a matching file: `occurrence` of `file.uploaded`
 * (one event per file and upload). `once_per: file` would fire only on a file's first upload,
 * and a file uploaded again must be ingested again (the SDK's "current upload").
 */
const RULE_SOURCE = parseSource({ type: "events", events: ["file.uploaded"], once_per: "occurrence" });

/** The id of the managed trigger's one target. */
export const RULE_TARGET_ID = "ingest";

/** The ActionInvocationSpec fields a rule keeps (the rest of a parsed target is the trigger's). */
const INVOCATION_FIELDS = ["action", "invocation_input", "parameter_values", "compute_requirement_overrides", "container_parameter_overrides", "timeout", "upload_destination"] as const;

/** A rule as create_rule gives it, already read from the wire. */
export interface NewRule {
  name: string;
  description: string | null;
  includePatterns: string[];
  excludePatterns: string[];
  invocation: JsonValue | undefined;
  autoIngest: boolean;
}

/**
 * Creates a rule and, when it has an invocation, its managed trigger (enabled while auto_ingest
 * is on), in one transaction. A rule that auto-ingests needs an invocation; a name the org
 * already uses is a conflict.
 */
export async function createRule(deps: IngestionRuleDeps, caller: Actor, orgId: string, input: NewRule): Promise<IngestionRuleRecord> {
  const rule = await deps.uow.transaction((repositories) => insertRule(deps, repositories, caller, orgId, input));
  await sendRulePaths(deps.uow, deps.rulePaths, orgId);
  return rule;
}

/** Who changes a rule: its managed trigger runs as the one who last set the invocation. */
export type Actor = Pick<Principal, "subject">;

/** createRule within a transaction the caller holds (the defaults are created together). */
export async function insertRule(deps: IngestionRuleDeps, repositories: IngestionRuleRepositories, caller: Actor, orgId: string, input: NewRule): Promise<IngestionRuleRecord> {
  const now = new Date();
  const rule: IngestionRuleRecord = {
    ruleId: newId("ir"),
    orgId,
    name: checkRuleName(input.name),
    description: input.description,
    includePatterns: checkPatterns(input.includePatterns, "include_patterns"),
    excludePatterns: checkPatterns(input.excludePatterns, "exclude_patterns"),
    invocation: parseInvocation(input.invocation),
    autoIngest: input.autoIngest,
    triggerId: null,
    created: now,
    createdBy: caller.subject,
    modified: now,
    modifiedBy: caller.subject,
  };
  requireInvocation(rule);
  await syncTrigger(deps, repositories, rule, caller, true);
  if (!(await repositories.ingestionRules.insert(rule))) throw conflict(`name: a rule named ${quoteValue(rule.name)} already exists in org ${quoteValue(orgId)}`);
  return rule;
}

/** A rule of the org; another org's, or a missing one, is not found. */
export async function getRule(uow: UnitOfWork<IngestionRuleRepositories>, orgId: string | undefined, ruleId: string): Promise<IngestionRuleRecord> {
  const rule = orgId ? await uow.repositories().ingestionRules.find(orgId, ruleId) : null;
  if (!rule) throw notFound("ingestion rule", ruleId);
  return rule;
}

/** update_rule's changes: undefined is unchanged; a null description or invocation clears it. */
export interface RuleChanges {
  name?: string | undefined;
  description?: string | null | undefined;
  includePatterns?: string[] | undefined;
  excludePatterns?: string[] | undefined;
  invocation?: JsonValue | undefined;
  autoIngest?: boolean | undefined;
}

/**
 * Changes a rule under its row lock and keeps its managed trigger in step in the same
 * transaction: a new invocation or patterns redefine the trigger, auto_ingest enables or disables
 * it (creating it when the rule had none), clearing the invocation deletes it.
 */
export async function updateRule(deps: IngestionRuleDeps, caller: Actor, orgId: string | undefined, ruleId: string, changes: RuleChanges): Promise<IngestionRuleRecord> {
  const updated = await deps.uow.transaction(async (repositories) => {
    const rule = orgId ? await repositories.ingestionRules.find(orgId, ruleId, true) : null;
    if (!rule) throw notFound("ingestion rule", ruleId);
    if (changes.name !== undefined && changes.name !== rule.name) {
      // Checked before the rename: the query would flush the new name into the unique index first.
      const name = checkRuleName(changes.name);
      if ((await repositories.ingestionRules.ofOrg(rule.orgId)).some((other) => other.name === name)) {
        throw conflict(`name: a rule named ${quoteValue(name)} already exists in org ${quoteValue(rule.orgId)}`);
      }
      rule.name = name;
    }
    if (changes.description !== undefined) rule.description = changes.description;
    if (changes.includePatterns !== undefined) rule.includePatterns = checkPatterns(changes.includePatterns, "include_patterns");
    if (changes.excludePatterns !== undefined) rule.excludePatterns = checkPatterns(changes.excludePatterns, "exclude_patterns");
    if (changes.invocation !== undefined) rule.invocation = parseInvocation(changes.invocation);
    if (changes.autoIngest !== undefined) rule.autoIngest = changes.autoIngest;
    requireInvocation(rule);
    Object.assign(rule, { modified: new Date(), modifiedBy: caller.subject });
    await syncTrigger(deps, repositories, rule, caller, changes.invocation !== undefined);
    return rule;
  });
  await sendRulePaths(deps.uow, deps.rulePaths, updated.orgId);
  return updated;
}

/** Deletes a rule of the org and its managed trigger (with the trigger's runs). */
export async function deleteRule(deps: Pick<IngestionRuleDeps, "uow" | "rulePaths">, orgId: string | undefined, ruleId: string): Promise<void> {
  const deleted = await deps.uow.transaction(async (repositories) => {
    const rule = orgId ? await repositories.ingestionRules.find(orgId, ruleId, true) : null;
    if (!rule) throw notFound("ingestion rule", ruleId);
    const trigger = rule.triggerId ? await repositories.triggerModel.findById(rule.orgId, rule.triggerId, true) : null;
    if (trigger) removeTrigger(repositories, trigger);
    repositories.ingestionRules.remove(rule);
    return rule;
  });
  await sendRulePaths(deps.uow, deps.rulePaths, deleted.orgId);
}

function checkRuleName(name: string): string {
  if (name.trim() === "") throw invalidArgument("name", "is required");
  if ([...name].length > MAX_RULE_NAME) throw invalidArgument("name", `at most ${MAX_RULE_NAME} characters`);
  return name;
}

function requireInvocation(rule: IngestionRuleRecord): void {
  if (rule.autoIngest && rule.invocation === null) throw invalidArgument("invocation", "is required: a rule that auto-ingests needs an invocation");
}

/** Reads and checks an ActionInvocationSpec (null or absent: none); errors name `invocation.<field>`. */
export function parseInvocation(json: JsonValue | undefined): JsonObject | null {
  if (json === undefined || json === null) return null;
  if (typeof json !== "object" || Array.isArray(json)) throw invalidArgument("invocation", "must be an object");
  const parsed = parseTarget({ ...json, type: "invoke_action", target_id: RULE_TARGET_ID, required_inputs: ["**"], additional_inputs: null }, RULE_SOURCE, "invocation");
  return Object.fromEntries(INVOCATION_FIELDS.map((field) => [field, parsed[field] ?? null]));
}

/** The managed trigger's one target: the rule's invocation on each uploaded file its patterns take. */
export function ruleTarget(rule: IngestionRuleRecord): JsonObject {
  return {
    type: "invoke_action",
    target_id: RULE_TARGET_ID,
    ...rule.invocation,
    required_inputs: rule.includePatterns,
    additional_inputs: null,
    // Read by the target prefilter: the rule's excludes (and dotfiles) keep a file out.
    exclude_inputs: effectiveExcludes(rule),
  };
}

/**
 * Brings the rule's managed trigger in line with the rule: none without an invocation; otherwise
 * one subscribed to `file.uploaded`, enabled while auto_ingest is on. The trigger runs as the
 * user who last set the invocation (`regrant`), as a trigger runs as its creator.
 */
async function syncTrigger(deps: IngestionRuleDeps, repositories: IngestionRuleRepositories, rule: IngestionRuleRecord, caller: Actor, regrant: boolean): Promise<void> {
  const existing = rule.triggerId ? await repositories.triggerModel.findById(rule.orgId, rule.triggerId, true) : null;
  if (rule.invocation === null) {
    if (existing) removeTrigger(repositories, existing);
    rule.triggerId = null;
    return;
  }
  const target = ruleTarget(rule);
  if (regrant) await checkTargets(deps, repositories.actions, rule.orgId, [target], () => "invocation");
  const now = new Date();
  if (existing) {
    Object.assign(existing, { targets: [target], enabled: rule.autoIngest, modified: now, modifiedBy: caller.subject });
    if (regrant) Object.assign(existing, { serviceUserId: caller.subject, serviceUserGrantedBy: caller.subject });
    return;
  }
  const trigger = managedTrigger(rule, target, caller.subject, now);
  if (!(await repositories.triggers.insert(trigger))) throw conflict(`name: the org already has a trigger named ${quoteValue(trigger.name)}`);
  rule.triggerId = trigger.triggerId;
}

function managedTrigger(rule: IngestionRuleRecord, target: JsonObject, by: string, now: Date): TriggerRecord {
  return {
    ...legacyBlank(rule.orgId, by),
    triggerId: newId("tr"),
    orgId: rule.orgId,
    name: `ingestion-rule-${rule.ruleId}`,
    enabled: rule.autoIngest,
    condition: null,
    created: now,
    createdBy: by,
    modified: now,
    modifiedBy: by,
    serviceUserGrantedBy: by,
    engine: "v2",
    firesOn: sourceJson(RULE_SOURCE),
    targets: [target],
    managedBy: ruleOwner(rule.ruleId),
    nextFireAt: null,
  };
}
