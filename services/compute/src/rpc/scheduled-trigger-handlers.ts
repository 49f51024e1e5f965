import { fromJson, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, nullableString, readableOrg, requireOrg } from "@hangar/shared";
import { ComputeRequirementsSchema, ContainerParametersSchema, type ComputeService, type CreateScheduledTriggerRequest, type ScheduledTriggerSchema, type UpdateScheduledTriggerRequest } from "@hangar/shared/proto/compute";
import { nullableBoolean, nullableInteger } from "../domain/actions";
import type { TriggerModelDeps } from "../domain/manage-trigger-model";
import {
  createScheduledTrigger,
  deleteScheduledTrigger,
  getScheduledTrigger,
  updateScheduledTrigger,
  type ScheduledEdits,
  type ScheduledTarget,
  type ScheduledTriggerView,
} from "../domain/scheduled-triggers";
import { checkTriggerName } from "../domain/triggers";
import { computeRequirementsToProto, containerParametersToProto } from "./invocation-mappers";
import { computeOverrides, jsonObject, messageOf, readJson } from "./trigger-mappers";
import { containerParametersJson, valueJson } from "./wire-json";

type ScheduledTriggerHandlers = Pick<
  ServiceImpl<typeof ComputeService>,
  "createScheduledTrigger" | "getScheduledTrigger" | "getScheduledTriggerById" | "updateScheduledTrigger" | "deleteScheduledTrigger"
>;

/** Implements the legacy scheduled-trigger operations of hangar.compute.v1.ComputeService over the 0.62 model. */
export function createScheduledTriggerHandlers(deps: TriggerModelDeps): ScheduledTriggerHandlers {
  return {
    async createScheduledTrigger(req, ctx) {
      const caller = callerOf(ctx);
      const input = { orgId: requireOrg(caller), name: checkTriggerName(req.name), schedule: req.schedule, target: createdTarget(req), enabled: req.enabled ?? true };
      return { trigger: scheduledToProto(await createScheduledTrigger(deps, caller, input)) };
    },

    async getScheduledTrigger(req, ctx) {
      return { trigger: scheduledToProto(await getScheduledTrigger(deps, readableOrg(callerOf(ctx)), { name: req.name })) };
    },

    async getScheduledTriggerById(req, ctx) {
      return { trigger: scheduledToProto(await getScheduledTrigger(deps, readableOrg(callerOf(ctx)), { triggerId: req.triggerId })) };
    },

    async updateScheduledTrigger(req, ctx) {
      const caller = callerOf(ctx);
      return { trigger: scheduledToProto(await updateScheduledTrigger(deps, caller, readableOrg(caller), req.triggerId, editsOf(req))) };
    },

    async deleteScheduledTrigger(req, ctx) {
      await deleteScheduledTrigger(deps, readableOrg(callerOf(ctx)), req.triggerId);
      return {};
    },
  };
}

/** The action target a create request describes, in the stored target's keys (overrides checked and completed as a legacy trigger's are). */
function createdTarget(req: CreateScheduledTriggerRequest): ScheduledTarget {
  return {
    action: { name: req.actionName, owner: req.actionOwnerId || null },
    parameter_values: req.parameterValues ?? {},
    compute_requirement_overrides: req.computeRequirementOverrides ? computeOverrides(req.computeRequirementOverrides, "compute_requirement_overrides") : null,
    container_parameter_overrides: req.containerParameterOverrides ? containerParametersJson(req.containerParameterOverrides) : null,
    invocation_input: valueJson(req.invocationInput) ?? null,
    upload_destination: valueJson(req.invocationUploadDestination) ?? null,
    timeout: req.timeout === undefined ? null : Number(req.timeout),
  };
}

/**
 * The edits an update request makes: an omitted key is unchanged; null clears a clearable one and
 * leaves action_name, enabled and schedule as they are (clients that send whole models send nulls).
 */
function editsOf(req: UpdateScheduledTriggerRequest): ScheduledEdits {
  const target = {
    parameter_values: readJson(req.parameterValues, (json) => jsonObject(json, "parameter_values")),
    compute_requirement_overrides: readJson(req.computeRequirementOverrides, (json) =>
      computeOverrides(messageOf(ComputeRequirementsSchema, json, "compute_requirement_overrides"), "compute_requirement_overrides"),
    ),
    container_parameter_overrides: readJson(req.containerParameterOverrides, (json) => containerParametersJson(messageOf(ContainerParametersSchema, json, "container_parameter_overrides"))),
    invocation_input: readJson(req.invocationInput, (json) => jsonObject(json, "invocation_input")),
    upload_destination: readJson(req.invocationUploadDestination, (json) => jsonObject(json, "invocation_upload_destination")),
    timeout: nullableInteger(req.timeout, "timeout"),
  };
  const owner = nullableString(req.actionOwnerId, "action_owner_id");
  return {
    schedule: nullableString(req.schedule, "schedule") ?? undefined,
    actionName: nullableString(req.actionName, "action_name") ?? undefined,
    actionOwnerId: owner === "" ? null : owner,
    enabled: nullableBoolean(req.enabled, "enabled") ?? undefined,
    // A cleared parameter_values is an empty object, as the action target stores it.
    target: Object.fromEntries(Object.entries(target).filter(([, value]) => value !== undefined).map(([key, value]) => [key, key === "parameter_values" ? (value ?? {}) : value])),
  };
}

/** A scheduled trigger to its wire record (the client SDK's ScheduledTriggerRecord). */
function scheduledToProto({ trigger, schedule, target }: ScheduledTriggerView): MessageInitShape<typeof ScheduledTriggerSchema> {
  const action = target.action as JsonObject;
  const compute = target.compute_requirement_overrides as JsonObject | null | undefined;
  const container = target.container_parameter_overrides as JsonObject | null | undefined;
  return {
    action: { name: String(action.name), owner: typeof action.owner === "string" ? action.owner : trigger.orgId, ...(typeof action.digest === "string" ? { digest: action.digest } : {}) },
    ...(compute ? { computeRequirementOverrides: computeRequirementsToProto(compute) } : {}),
    ...(container ? { containerParameterOverrides: containerParametersToProto(container) } : {}),
    created: timestampFromDate(trigger.created),
    createdBy: trigger.createdBy,
    enabled: trigger.enabled,
    ...(target.invocation_input ? { invocationInput: fromJson(ValueSchema, target.invocation_input) } : {}),
    ...(target.upload_destination ? { invocationUploadDestination: fromJson(ValueSchema, target.upload_destination) } : {}),
    name: trigger.name,
    ...(trigger.nextFireAt ? { nextOccurrence: timestampFromDate(trigger.nextFireAt) } : {}),
    orgId: trigger.orgId,
    parameterValues: (target.parameter_values as JsonObject | null) ?? {},
    schedule,
    ...(typeof target.timeout === "number" ? { timeout: BigInt(target.timeout) } : {}),
    triggerId: trigger.triggerId,
    modified: timestampFromDate(trigger.modified),
    modifiedBy: trigger.modifiedBy,
  };
}
