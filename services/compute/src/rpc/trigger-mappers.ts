import { fromJson, type DescMessage, type JsonObject, type JsonValue, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import { invalidArgument, nullableString } from "@hangar/shared";
import {
  ComputeRequirementsSchema,
  ContainerParametersSchema,
  type ComputeRequirements,
  type CreateTriggerRequest,
  type TriggerEvaluationSchema,
  type TriggerSchema,
  type UpdateTriggerRequest,
} from "@hangar/shared/proto/compute";
import { nullableBoolean, nullableInteger } from "../domain/actions";
import { resolveComputeRequirements } from "../domain/compute-defaults";
import type { TriggerChanges } from "../domain/triggers";
import type { TriggerDispatchRecord, TriggerEvaluationRecord, TriggerRecord } from "../domain/records";
import { modelView } from "../domain/trigger-view";
import { computeRequirementsToProto, containerParametersToProto } from "./invocation-mappers";
import { computeRequirementsJson, containerParametersJson, valueJson } from "./wire-json";

/** Trigger row to its wire record (the client SDK's TriggerRecord). */
export function triggerToProto(row: TriggerRecord): MessageInitShape<typeof TriggerSchema> {
  return {
    triggerId: row.triggerId,
    name: row.name,
    orgId: row.orgId,
    created: timestampFromDate(row.created),
    createdBy: row.createdBy,
    modified: timestampFromDate(row.modified),
    modifiedBy: row.modifiedBy,
    action: { name: row.actionName, owner: row.actionOwnerId, ...(row.actionDigest !== null ? { digest: row.actionDigest } : {}) },
    requiredInputs: row.requiredInputs,
    serviceUserId: row.serviceUserId,
    forEach: row.forEach,
    enabled: row.enabled,
    parameterValues: row.parameterValues,
    additionalInputs: row.additionalInputs,
    causes: row.causes,
    ...(row.computeRequirementOverrides ? { computeRequirementOverrides: computeRequirementsToProto(row.computeRequirementOverrides) } : {}),
    ...(row.containerParameterOverrides ? { containerParameterOverrides: containerParametersToProto(row.containerParameterOverrides) } : {}),
    ...(row.condition !== null ? { condition: fromJson(ValueSchema, row.condition) } : {}),
    ...(row.timeout !== null ? { timeout: BigInt(row.timeout) } : {}),
    ...modelFieldsToProto(row),
  };
}

/** The 0.62 view of a trigger (fires_on, targets, engine, managed_by), for legacy and v2 triggers alike. */
function modelFieldsToProto(row: TriggerRecord) {
  const { firesOn, targets } = modelView(row);
  // A v1 trigger's one target shows its container parameters as its legacy record does (completed).
  const shown = row.engine === "v1" ? targets.map((target) => ({ ...target, container_parameter_overrides: containerParametersWire(row.containerParameterOverrides) })) : targets;
  return {
    firesOn: fromJson(ValueSchema, firesOn),
    targets: fromJson(ValueSchema, shown),
    engine: row.engine,
    managedBy: fromJson(ValueSchema, row.managedBy),
  };
}

function containerParametersWire(json: JsonObject | null): JsonObject | null {
  if (json === null) return null;
  const wire = containerParametersToProto(json);
  return { command: wire.command ?? [], entry_point: wire.entryPoint ?? [], env_vars: wire.envVars ?? {}, workdir: wire.workdir ?? null };
}

/** Evaluation row to its wire record (the client SDK's TriggerEvaluationRecord). */
export function evaluationToProto(row: TriggerEvaluationRecord): MessageInitShape<typeof TriggerEvaluationSchema> {
  return {
    triggerEvaluationId: BigInt(row.triggerEvaluationId),
    triggerId: row.triggerId,
    dataSource: { dataSourceType: row.dataSourceType, dataSourceId: row.dataSourceId },
    ...(row.transactionId !== null ? { dataConstraint: { transactionId: row.transactionId } } : {}),
    evaluationStart: timestampFromDate(row.evaluationStart),
    ...(row.evaluationEnd ? { evaluationEnd: timestampFromDate(row.evaluationEnd) } : {}),
    status: row.status,
    ...present("statusDetail", row.statusDetail),
    ...present("outcome", row.outcome),
    ...present("outcomeReason", row.outcomeReason),
    ...present("cause", row.cause),
  };
}

/**
 * A dispatch as a legacy evaluation record: claimed is `pending`, dispatched `evaluated` with outcome
 * `invoked_action`, failed (or unknown) `failed` with its detail. A tick names no dataset (id "").
 */
export function dispatchAsEvaluation(row: TriggerDispatchRecord): MessageInitShape<typeof TriggerEvaluationSchema> {
  const status = row.status === "claimed" ? "pending" : row.status === "dispatched" ? "evaluated" : "failed";
  return {
    triggerEvaluationId: BigInt(row.dispatchId),
    triggerId: row.triggerId,
    dataSource: { dataSourceType: "Dataset", dataSourceId: row.datasetId ?? "" },
    evaluationStart: timestampFromDate(row.claimedAt),
    ...(row.finalizedAt ? { evaluationEnd: timestampFromDate(row.finalizedAt) } : {}),
    status,
    ...present("statusDetail", row.statusDetail),
    ...(row.status === "dispatched" ? { outcome: "invoked_action" } : {}),
  };
}

function present<K extends string>(key: K, value: string | null): Partial<Record<K, string>> {
  return value === null ? {} : ({ [key]: value } as Record<K, string>);
}

/** The settings a create request gives; null stands for a setting left to its default. */
export function createChangesFromProto(req: CreateTriggerRequest): TriggerChanges {
  const compute = eitherOverride(req.computeRequirementOverrides, req.computeRequirements, "compute_requirement_overrides", "compute_requirements");
  const container = eitherOverride(req.containerParameterOverrides, req.containerParameters, "container_parameter_overrides", "container_parameters");
  return {
    actionName: req.actionName,
    actionOwnerId: req.actionOwnerId || null,
    actionDigest: req.actionDigest || null,
    forEach: req.forEach,
    requiredInputs: req.requiredInputs,
    additionalInputs: req.additionalInputs,
    causes: req.causes,
    condition: valueJson(req.condition) ?? null,
    computeRequirementOverrides: compute ? computeOverrides(compute.value, compute.field) : null,
    containerParameterOverrides: container ? containerParametersJson(container.value) : null,
    enabled: req.enabled ?? true,
    parameterValues: req.parameterValues ?? null,
    serviceUserId: req.serviceUserId || null,
    timeout: req.timeout === undefined ? null : Number(req.timeout),
  };
}

/**
 * True when a create body is in the 0.62 shape (`fires_on` or `targets` given): the gateway's API
 * version translation decides which shape a client's version may send; this reads what arrived.
 */
export function isModelBody(req: CreateTriggerRequest): boolean {
  return (valueJson(req.firesOn) ?? null) !== null || (valueJson(req.targets) ?? null) !== null;
}

/** The fields a legacy create body requires, checked in declaration order (they are not REQUIRED at the gateway, which a v2 body lacks them for). */
export function requireLegacyFields(req: CreateTriggerRequest): void {
  if (req.actionName === "") throw invalidArgument("action_name", "is required");
  if (req.forEach === "") throw invalidArgument("for_each", "is required");
  if (req.requiredInputs.length === 0) throw invalidArgument("required_inputs", "is required");
}

// The overrides go by the client SDK's names (`compute_requirement_overrides`) or the spec's (`compute_requirements`).
function eitherOverride<T>(sdk: T | undefined, spec: T | undefined, sdkField: string, specField: string): { value: T; field: string } | undefined {
  if (sdk && spec) throw invalidArgument(specField, `give either ${specField} or ${sdkField}, not both`);
  if (sdk) return { value: sdk, field: sdkField };
  return spec ? { value: spec, field: specField } : undefined;
}

/**
 * The edits an update request makes. Clearable settings take null as "clear"; for the others
 * (action_name, for_each, required_inputs, enabled) null means unchanged, as clients that send
 * full models with nulls expect.
 */
export function updateChangesFromProto(req: UpdateTriggerRequest): TriggerChanges {
  const changes: TriggerChanges = {
    actionName: nullableString(req.actionName, "action_name") ?? undefined,
    actionOwnerId: emptyAsNull(nullableString(req.actionOwnerId, "action_owner_id")),
    actionDigest: emptyAsNull(nullableString(req.actionDigest, "action_digest")),
    forEach: nullableString(req.forEach, "for_each") ?? undefined,
    requiredInputs: readJson(req.requiredInputs, (json) => stringList(json, "required_inputs")) ?? undefined,
    additionalInputs: readJson(req.additionalInputs, (json) => stringList(json, "additional_inputs")),
    causes: readJson(req.causes, (json) => stringList(json, "causes")),
    condition: valueJson(req.condition),
    computeRequirementOverrides: readJson(req.computeRequirementOverrides, (json) =>
      computeOverrides(messageOf(ComputeRequirementsSchema, json, "compute_requirement_overrides"), "compute_requirement_overrides"),
    ),
    containerParameterOverrides: readJson(req.containerParameterOverrides, (json) =>
      containerParametersJson(messageOf(ContainerParametersSchema, json, "container_parameter_overrides")),
    ),
    enabled: nullableBoolean(req.enabled, "enabled") ?? undefined,
    parameterValues: readJson(req.parameterValues, (json) => jsonObject(json, "parameter_values")),
    serviceUserId: emptyAsNull(nullableString(req.serviceUserId, "service_user_id")),
    timeout: nullableInteger(req.timeout, "timeout"),
  };
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
}

/** Complete, checked compute requirements: the keys given over the SDK's defaults, as its model fills them. */
export function computeOverrides(requirements: ComputeRequirements, field: string): JsonObject {
  return resolveComputeRequirements(null, computeRequirementsJson(requirements), field);
}

/** A nullable JSON field read with `read`: undefined when absent, null when null. */
export function readJson<T>(value: Value | undefined, read: (json: JsonValue) => T): T | null | undefined {
  const json = valueJson(value);
  return json === undefined || json === null ? json : read(json);
}

function emptyAsNull(value: string | null | undefined): string | null | undefined {
  return value === "" ? null : value;
}

function stringList(json: JsonValue, field: string): string[] {
  if (!Array.isArray(json) || json.some((item) => typeof item !== "string")) throw invalidArgument(field, "expected a list of strings or null");
  return json as string[];
}

/** A JSON object, or a 400 naming `field`. */
export function jsonObject(json: JsonValue, field: string): JsonObject {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw invalidArgument(field, "expected an object or null");
  return json;
}

/** A JSON object read as a message, or a 400 naming `field`. */
export function messageOf<Desc extends DescMessage>(schema: Desc, json: JsonValue, field: string): MessageShape<Desc> {
  jsonObject(json, field);
  try {
    return fromJson(schema, json);
  } catch (error) {
    throw invalidArgument(field, error instanceof Error ? error.message : String(error));
  }
}
