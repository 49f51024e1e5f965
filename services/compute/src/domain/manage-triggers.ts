import { conflict, invalidArgument, newId, notFound, quoteValue, requireRunsAs, type KeysetPage, type Principal, type SearchPlan, type UnitOfWork, type UserDirectory } from "@hangar/shared";
import { removeTrigger } from "./entity-deletions";
import type { DatasetDirectory } from "./datasets";
import { DEFAULT_ACTIVE_TRIGGER_LIMIT, requireActiveSlot } from "./active-trigger-cap";
import { refuseManagedChange } from "./managed-triggers";
import type { TriggerEvaluationRecord, TriggerRecord } from "./records";
import { planEvaluationPage } from "./trigger-evaluation";
import type { SearchPage, TriggerRepositories, TriggerRepository } from "./repositories";
import { applyTriggerChanges, changesAction, changesWhatRuns, checkTriggerAction, newTriggerSettings, type TriggerChanges } from "./triggers";

/** The cap on an org's enabled triggers that creating or enabling one checks (TRIGGER_ACTIVE_LIMIT). */
export interface ActiveLimit {
  activeLimit?: number;
}

/** A trigger as an operation names it: by name, in the org the caller may read. */
export interface TriggerRef {
  orgId: string;
  name: string;
}

/**
 * Creates a trigger (its name already checked): the settings are checked and defaulted, the
 * caller must be allowed to have it run as its service user, and the org must be able to invoke
 * its action with its parameter values. A name the org already uses is a conflict.
 */
export async function createTrigger(
  uow: UnitOfWork<TriggerRepositories>,
  users: UserDirectory,
  caller: Principal,
  input: TriggerRef & ActiveLimit & { changes: TriggerChanges },
): Promise<TriggerRecord> {
  const { orgId, name } = input;
  const settings = newTriggerSettings(input.changes, { orgId, createdBy: caller.subject });
  await requireRunsAs(caller, orgId, settings.serviceUserId, "service_user_id", users);
  await checkTriggerAction(uow.repositories().actions, orgId, settings);
  const now = new Date();
  const by = caller.subject;
  const record: TriggerRecord = {
    ...settings,
    triggerId: newId("tr"),
    orgId,
    name,
    created: now,
    createdBy: by,
    modified: now,
    modifiedBy: by,
    serviceUserGrantedBy: by,
    ...{ engine: "v1", firesOn: null, targets: null, managedBy: null, nextFireAt: null },
  };
  return uow.transaction(async (repositories) => {
    if (record.enabled) await requireActiveSlot(repositories.triggers, orgId, input.activeLimit ?? DEFAULT_ACTIVE_TRIGGER_LIMIT);
    if (!(await repositories.triggers.insert(record))) throw conflict(`name: a trigger named ${quoteValue(name)} already exists in org ${quoteValue(orgId)}`);
    return record;
  });
}

/** A trigger of the org; another org's is not found, like one that does not exist. */
export async function getTrigger(uow: UnitOfWork<TriggerRepositories>, ref: TriggerRef): Promise<TriggerRecord> {
  return ownTrigger(uow.repositories().triggers, ref);
}

/**
 * Edits a trigger under its row lock, so two edits at once cannot each apply to the same read. An
 * edit of what runs (anything but switching it on or off) is a new decision to run as the service
 * user: the editor must be allowed to make it, and becomes its grantor. Edits of the action or the
 * parameter values are checked against the action; other edits (disabling a trigger) work even
 * when its action has changed since.
 */
export async function updateTrigger(
  uow: UnitOfWork<TriggerRepositories>,
  users: UserDirectory,
  caller: Principal,
  input: TriggerRef & ActiveLimit & { changes: TriggerChanges },
): Promise<TriggerRecord> {
  return uow.transaction(async ({ actions, triggers }) => {
    const trigger = await ownTrigger(triggers, input, true);
    if (input.changes.enabled === true && !trigger.enabled && trigger.managedBy === null) await requireActiveSlot(triggers, trigger.orgId, input.activeLimit ?? DEFAULT_ACTIVE_TRIGGER_LIMIT);
    if (trigger.engine === "v2") throw invalidArgument("name", `trigger ${quoteValue(trigger.name)} was created with fires_on/targets: update it with PUT /v1/triggers/id/${trigger.triggerId}`);
    const next = applyTriggerChanges(trigger, input.changes, { orgId: trigger.orgId, createdBy: trigger.createdBy });
    const regrants = changesWhatRuns(input.changes);
    if (regrants) await requireRunsAs(caller, trigger.orgId, next.serviceUserId, "service_user_id", users);
    if (changesAction(input.changes)) await checkTriggerAction(actions, trigger.orgId, next);
    Object.assign(trigger, next, { modified: new Date(), modifiedBy: caller.subject }, regrants ? { serviceUserGrantedBy: caller.subject } : {});
    return trigger;
  });
}

/** Deletes a trigger of the org and its comments; the invocations it started stay. */
export async function deleteTrigger(uow: UnitOfWork<TriggerRepositories>, ref: TriggerRef): Promise<void> {
  await uow.transaction(async (repositories) => {
    const trigger = await ownTrigger(repositories.triggers, ref);
    refuseManagedChange(trigger, "name", false);
    removeTrigger(repositories, trigger);
  });
}

/** One page of a planned search of the org's triggers. */
export function searchTriggers(uow: UnitOfWork<TriggerRepositories>, orgId: string, plan: SearchPlan): Promise<SearchPage<TriggerRecord>> {
  return uow.repositories().triggers.search(orgId, plan);
}

/** A page of evaluations, newest first, and how many there are in all. */
export interface EvaluationPage {
  rows: TriggerEvaluationRecord[];
  hasMore: boolean;
  total: number;
}

/**
 * The evaluations of a trigger of the org, a page of `limit` (see planEvaluationPage) after
 * `pageToken`, which binds to the trigger.
 */
export async function listTriggerEvaluations(
  uow: UnitOfWork<TriggerRepositories>,
  ref: TriggerRef,
  request: { limit: bigint | undefined; pageToken: string | undefined },
): Promise<{ page: KeysetPage; evaluations: EvaluationPage }> {
  const { triggers } = uow.repositories();
  const trigger = await ownTrigger(triggers, ref);
  const page = planEvaluationPage(request.limit, request.pageToken, `trigger:${trigger.triggerId}`);
  return { page, evaluations: await triggers.evaluations({ triggerId: trigger.triggerId }, page) };
}

/** The evaluations made for a dataset of the org; like every dataset route, a dataset the org does not hold is not found. */
export async function listDatasetEvaluations(
  uow: UnitOfWork<TriggerRepositories>,
  datasets: DatasetDirectory,
  scope: { orgId: string; datasetId: string },
  page: KeysetPage,
): Promise<EvaluationPage> {
  await datasets.requireDataset(scope.orgId, scope.datasetId);
  return uow.repositories().triggers.evaluations(scope, page);
}

async function ownTrigger(triggers: TriggerRepository, ref: TriggerRef, lock = false): Promise<TriggerRecord> {
  const trigger = await triggers.find(ref.orgId, ref.name, lock);
  if (!trigger) throw notFound("trigger", ref.name);
  return trigger;
}
