import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { conflict, invalidArgument, newId, notFound, quoteValue, type Principal, type UnitOfWork } from "@hangar/shared";
import { removeTrigger } from "./entity-deletions";
import type { DatasetDirectory } from "./datasets";
import type { SlackSender } from "./fire-triggers";
import { parseUploadDestination } from "./invocation-request";
import { requireActiveSlot } from "./active-trigger-cap";
import { resolveInvocableAction, resolveParameterValues } from "./invoke";
import { refuseManagedChange } from "./managed-triggers";
import type { TriggerRecord } from "./records";
import type { TriggerModelRepositories } from "./repositories";
import { parseSource, parseTargets, parseTriggerCondition, sourceJson } from "./trigger-definition";
import { firstFireAt } from "./trigger-scheduler";
import { storedSource } from "./trigger-view";

/** What the trigger model's operations run on. */
export interface TriggerModelDeps {
  uow: UnitOfWork<TriggerModelRepositories>;
  slack: SlackSender;
  /** The org's datasets: a target's upload destination that names one must be the org's. */
  datasets: DatasetDirectory;
  /** The scheduler's clock, from which a schedule trigger's first tick is counted. */
  clock: () => Date;
  /** How many triggers an org may have enabled (TRIGGER_ACTIVE_LIMIT; see requireActiveSlot). */
  activeTriggerLimit: number;
}

/** A v2 definition as a request gives it: JSON values, undefined where absent. */
export interface DefinitionInput {
  firesOn?: JsonValue | undefined;
  condition?: JsonValue | undefined;
  targets?: JsonValue | undefined;
}

/**
 * Creates a v2 trigger (its name already checked). Triggered work runs as the creator, so a
 * caller-supplied service user is refused; every action target must name an action the org may
 * invoke and every Slack target a channel the deployment has a webhook for.
 */
export async function createModelTrigger(
  deps: TriggerModelDeps,
  caller: Principal,
  input: { orgId: string; name: string; definition: DefinitionInput; enabled: boolean; serviceUserGiven: boolean },
): Promise<TriggerRecord> {
  refuseServiceUser(input.serviceUserGiven);
  const source = parseSource(input.definition.firesOn);
  const condition = parseTriggerCondition(input.definition.condition, source);
  const targets = parseTargets(input.definition.targets, source);
  await checkTargets(deps, deps.uow.repositories().actions, input.orgId, targets);
  const now = new Date();
  const by = caller.subject;
  const record: TriggerRecord = {
    ...legacyBlank(input.orgId, by),
    triggerId: newId("tr"),
    orgId: input.orgId,
    name: input.name,
    enabled: input.enabled,
    condition: condition as unknown as JsonValue,
    created: now,
    createdBy: by,
    modified: now,
    modifiedBy: by,
    serviceUserGrantedBy: by,
    engine: "v2",
    firesOn: sourceJson(source),
    targets,
    managedBy: null,
    nextFireAt: null,
  };
  record.nextFireAt = firstFireAt(record, deps.clock());
  return deps.uow.transaction(async (repositories) => {
    if (record.enabled) await requireActiveSlot(repositories.triggers, record.orgId, deps.activeTriggerLimit);
    if (!(await repositories.triggers.insert(record))) throw conflict(`name: a trigger named ${quoteValue(input.name)} already exists in org ${quoteValue(input.orgId)}`);
    return record;
  });
}

/** A caller-supplied `service_user_id` is a 400: a v2 trigger runs its targets as its creator. */
export function refuseServiceUser(given: boolean): void {
  if (given) throw invalidArgument("service_user_id", "cannot be set: a trigger runs its targets as the user who created it");
}

/** The legacy columns of a v2 trigger: empty, so legacy evaluation never picks it up. */
export function legacyBlank(orgId: string, by: string) {
  return {
    actionName: "",
    actionOwnerId: orgId,
    actionDigest: null,
    requiredInputs: [],
    additionalInputs: [],
    causes: [],
    forEach: "",
    computeRequirementOverrides: null,
    containerParameterOverrides: null,
    parameterValues: {},
    serviceUserId: by,
    timeout: null,
  };
}

/**
 * Checks targets against the org: each action target names an action the org may invoke, with
 * parameter values it accepts; each Slack target a channel with a webhook. `fieldOf` names the
 * target in errors (an ingestion rule's one target is its `invocation`).
 */
export async function checkTargets(
  deps: Pick<TriggerModelDeps, "slack" | "datasets">,
  actions: TriggerModelRepositories["actions"],
  orgId: string,
  targets: JsonObject[],
  fieldOf: (i: number) => string = (i) => `targets[${i}]`,
): Promise<void> {
  for (const [i, target] of targets.entries()) {
    if (target.type === "send_slack_message" && !deps.slack.knows(String(target.channel_id))) {
      throw invalidArgument(`${fieldOf(i)}.channel_id`, `names a Slack channel with no webhook configured: ${quoteValue(target.channel_id)}`);
    }
    if (target.type !== "invoke_action") continue;
    // As invoke_action checks it: outputs go to a dataset of the org, decided when the trigger is
    // defined, not found out when a firing's runner uploads to it.
    const destination = parseUploadDestination(target.upload_destination ?? undefined, `${fieldOf(i)}.upload_destination`);
    if (destination && "datasetId" in destination) await deps.datasets.requireDataset(orgId, destination.datasetId);
    const ref = target.action as JsonObject;
    const action = await resolveInvocableAction(actions, orgId, {
      name: String(ref.name),
      ownerOrgId: typeof ref.owner === "string" ? ref.owner : orgId,
      digest: typeof ref.digest === "string" ? ref.digest : undefined,
    });
    try {
      resolveParameterValues(action.definition, (target.parameter_values as JsonObject | null) ?? {});
    } catch (error) {
      // Name the field within the target: `targets[0].parameter_values.x: ...`.
      if (error instanceof ConnectError && error.code === Code.InvalidArgument) throw new ConnectError(`${fieldOf(i)}.${error.rawMessage}`, error.code);
      throw error;
    }
  }
}

/** A trigger of the org by id; another org's is not found, like one that does not exist. */
export async function getModelTrigger(uow: UnitOfWork<TriggerModelRepositories>, orgId: string | undefined, triggerId: string): Promise<TriggerRecord> {
  const trigger = orgId ? await uow.repositories().triggerModel.findById(orgId, triggerId) : null;
  if (!trigger) throw notFound("trigger", triggerId);
  return trigger;
}

/** The edits of an id-keyed update: absent keys are unchanged; `condition: null` clears it. */
export interface ModelChanges extends DefinitionInput {
  name?: string | undefined;
  enabled?: boolean | undefined;
  serviceUserGiven: boolean;
  /**
   * Definition edits made from the locked row, laid over the ones above: an edit of part of the
   * definition (a legacy scheduled trigger's one target) is built from what is stored at the lock,
   * so two edits at once cannot each rebuild from the same read and lose the other's change.
   */
  fromLocked?: (trigger: TriggerRecord) => DefinitionInput;
}

/**
 * Edits a trigger under its row lock. A v1 trigger may only be switched on or off here (its
 * definition changes through the legacy routes); renaming onto a used name is a conflict. A
 * schedule trigger's next tick is recounted from now, so re-enabling it never fires missed ticks.
 */
export async function updateModelTrigger(deps: TriggerModelDeps, caller: Principal, orgId: string | undefined, triggerId: string, requested: ModelChanges): Promise<TriggerRecord> {
  refuseServiceUser(requested.serviceUserGiven);
  const updated = await deps.uow.transaction(async ({ actions, triggers, triggerModel }) => {
    const trigger = orgId ? await triggerModel.findById(orgId, triggerId, true) : null;
    if (!trigger) throw notFound("trigger", triggerId);
    const changes = requested.fromLocked ? { ...requested, ...requested.fromLocked(trigger) } : requested;
    const redefines = changes.firesOn !== undefined || changes.condition !== undefined || changes.targets !== undefined;
    refuseManagedChange(trigger, "trigger_id", !redefines && changes.name === undefined);
    if (trigger.engine === "v1" && redefines) throw invalidArgument("fires_on", "a trigger created with causes/for_each changes its definition through PUT /v1/triggers/{name}");
    if (redefines) await redefine(deps, actions, trigger, changes);
    if (changes.name !== undefined && changes.name !== trigger.name) {
      if (await triggers.find(trigger.orgId, changes.name)) throw conflict(`name: a trigger named ${quoteValue(changes.name)} already exists in org ${quoteValue(trigger.orgId)}`);
      trigger.name = changes.name;
    }
    if (changes.enabled === true && !trigger.enabled && trigger.managedBy === null) await requireActiveSlot(triggers, trigger.orgId, deps.activeTriggerLimit);
    if (changes.enabled !== undefined) trigger.enabled = changes.enabled;
    Object.assign(trigger, { modified: new Date(), modifiedBy: caller.subject });
    trigger.nextFireAt = firstFireAt(trigger, deps.clock());
    return trigger;
  });
  return updated;
}

async function redefine(deps: TriggerModelDeps, actions: TriggerModelRepositories["actions"], trigger: TriggerRecord, changes: ModelChanges): Promise<void> {
  const source = changes.firesOn !== undefined ? parseSource(changes.firesOn) : storedSource(trigger);
  const condition = parseTriggerCondition(changes.condition !== undefined ? changes.condition : (trigger.condition ?? undefined), source);
  const targets = parseTargets(changes.targets !== undefined ? changes.targets : (trigger.targets ?? undefined), source);
  await checkTargets(deps, actions, trigger.orgId, targets);
  Object.assign(trigger, { firesOn: sourceJson(source), condition, targets });
}

/** Deletes a trigger of the org, its dispatch history and its comments; another org's, or a missing one, is not found. */
export async function deleteModelTrigger(uow: UnitOfWork<TriggerModelRepositories>, orgId: string | undefined, triggerId: string): Promise<void> {
  await uow.transaction(async (repositories) => {
    const trigger = orgId ? await repositories.triggerModel.findById(orgId, triggerId) : null;
    if (!trigger) throw notFound("trigger", triggerId);
    refuseManagedChange(trigger, "trigger_id", false);
    removeTrigger(repositories, trigger);
  });
}
