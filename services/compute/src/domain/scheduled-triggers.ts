import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { notFound, type Principal } from "@hangar/shared";
import { parseUploadDestination } from "./invocation-request";
import { createModelTrigger, deleteModelTrigger, updateModelTrigger, type DefinitionInput, type TriggerModelDeps } from "./manage-trigger-model";
import type { TriggerRecord } from "./records";

/**
 * The legacy scheduled triggers (the client SDK's ScheduledTrigger) over the 0.62 model: a
 * scheduled trigger is a schedule trigger (`fires_on: {type: "schedule", cron}`, UTC, no
 * condition) with one invoke_action target, so the 0.62 routes and the scheduler see it as any
 * other; a trigger of any other shape has no scheduled form and is not found by these routes.
 */

/** The target id a scheduled trigger's one target gets (as a legacy trigger's projection has). */
export const SCHEDULED_TARGET_ID = "action";

/** A trigger in its scheduled form: its cron and its one action target (the stored JSON shape). */
export interface ScheduledTriggerView {
  trigger: TriggerRecord;
  schedule: string;
  target: JsonObject;
}

/** A trigger's scheduled form, or undefined when it has none. */
export function scheduledView(trigger: TriggerRecord): ScheduledTriggerView | undefined {
  const source = trigger.firesOn;
  const targets = trigger.targets ?? [];
  if (trigger.engine !== "v2" || source?.type !== "schedule" || source.timezone !== undefined || trigger.condition !== null) return undefined;
  if (targets.length !== 1 || targets[0]!.type !== "invoke_action") return undefined;
  return { trigger, schedule: String(source.cron), target: targets[0]! };
}

/** What a scheduled trigger's action target runs, in the target's JSON keys (`upload_destination` is the SDK's InvocationUploadDestination). */
export interface ScheduledTarget extends JsonObject {
  action: { name: string; owner: string | null };
}

/** Creates a scheduled trigger in the org (its name already checked); errors name the legacy request's fields. */
export async function createScheduledTrigger(
  deps: TriggerModelDeps,
  caller: Principal,
  input: { orgId: string; name: string; schedule: string; target: ScheduledTarget; enabled: boolean },
): Promise<ScheduledTriggerView> {
  const trigger = await inLegacyTerms(() =>
    createModelTrigger(deps, caller, { orgId: input.orgId, name: input.name, definition: definitionOf(input.schedule, input.target), enabled: input.enabled, serviceUserGiven: false }),
  );
  return scheduledView(trigger)!;
}

/** A scheduled trigger of the org by name or id; another org's, or a trigger of another shape, is not found. */
export async function getScheduledTrigger(deps: Pick<TriggerModelDeps, "uow">, orgId: string | undefined, ref: { name: string } | { triggerId: string }): Promise<ScheduledTriggerView> {
  const { triggers, triggerModel } = deps.uow.repositories();
  const trigger = !orgId ? null : "name" in ref ? await triggers.find(orgId, ref.name) : await triggerModel.findById(orgId, ref.triggerId);
  const view = trigger ? scheduledView(trigger) : undefined;
  if (!view) throw notFound("scheduled trigger", "name" in ref ? ref.name : ref.triggerId);
  return view;
}

/**
 * The edits of a scheduled trigger: a new schedule, another action (its name, or its owner: null is
 * the trigger's org), other target keys replaced (null clears one), switched on or off.
 */
export interface ScheduledEdits {
  schedule?: string | undefined;
  actionName?: string | undefined;
  actionOwnerId?: string | null | undefined;
  target: Omit<Partial<ScheduledTarget>, "action">;
  enabled?: boolean | undefined;
}

/**
 * Edits a scheduled trigger through the 0.62 update (so the cap, managed-trigger and next-tick rules
 * are the same): the edited target is the current one with the given keys replaced.
 */
export async function updateScheduledTrigger(deps: TriggerModelDeps, caller: Principal, orgId: string | undefined, triggerId: string, edits: ScheduledEdits): Promise<ScheduledTriggerView> {
  await getScheduledTrigger(deps, orgId, { triggerId });
  // Rebuilt from the row as locked: another edit may have changed it since the read above.
  const fromLocked = (trigger: TriggerRecord): DefinitionInput => {
    const current = scheduledView(trigger);
    if (!current) throw notFound("scheduled trigger", triggerId);
    return redefines(edits) ? definitionOf(edits.schedule ?? current.schedule, editedTarget(current.target, edits)) : {};
  };
  const updated = await inLegacyTerms(() => updateModelTrigger(deps, caller, orgId, triggerId, { enabled: edits.enabled, serviceUserGiven: false, fromLocked }));
  return scheduledView(updated)!;
}

function redefines(edits: ScheduledEdits): boolean {
  return edits.schedule !== undefined || edits.actionName !== undefined || edits.actionOwnerId !== undefined || Object.keys(edits.target).length > 0;
}

/** The target with the edits laid over it. Another action is named by name and owner only: a digest pinned for the old one does not carry over. */
function editedTarget(target: JsonObject, edits: ScheduledEdits): ScheduledTarget {
  const current = target.action as JsonObject;
  const changesAction = edits.actionName !== undefined || edits.actionOwnerId !== undefined;
  const action = changesAction ? { name: edits.actionName ?? current.name!, owner: edits.actionOwnerId === undefined ? current.owner! : edits.actionOwnerId } : current;
  return { ...target, ...edits.target, action } as ScheduledTarget;
}

/** Deletes a scheduled trigger of the org and its dispatch history. */
export async function deleteScheduledTrigger(deps: Pick<TriggerModelDeps, "uow">, orgId: string | undefined, triggerId: string): Promise<void> {
  await getScheduledTrigger(deps, orgId, { triggerId });
  await deleteModelTrigger(deps.uow, orgId, triggerId);
}

function definitionOf(schedule: string, target: ScheduledTarget): DefinitionInput {
  parseUploadDestination(target.upload_destination ?? undefined);
  return { firesOn: { type: "schedule", cron: schedule }, targets: [{ ...target, type: "invoke_action", target_id: target.target_id ?? SCHEDULED_TARGET_ID }] };
}

// The 0.62 definition's field paths as the legacy request names them (first match wins).
const LEGACY_FIELDS: [RegExp, string][] = [
  [/^fires_on\.cron/, "schedule"],
  [/^targets\[0\]\.action\.name/, "action_name"],
  [/^targets\[0\]\.action\.owner/, "action_owner_id"],
  [/^targets\[0\]\.upload_destination/, "invocation_upload_destination"],
  [/^upload_destination/, "invocation_upload_destination"],
  [/^targets\[0\]\./, ""],
];

/** Runs a 0.62 operation, renaming the fields its 400s name to the legacy request's. */
async function inLegacyTerms<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof ConnectError) || error.code !== Code.InvalidArgument) throw error;
    const rule = LEGACY_FIELDS.find(([pattern]) => pattern.test(error.rawMessage));
    throw rule ? new ConnectError(error.rawMessage.replace(rule[0], rule[1]), error.code) : error;
  }
}
