import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { invalidArgument, newId, notFound, textArrayLiteral, type EntityManager } from "@hangar/shared";
import { Action, ActionVersion, Invocation } from "../store/entities";
import type { ActionDefinition, InvocationRecord } from "./records";
import { checkTimeout, DEFAULT_TIMEOUT_MINUTES, resolveComputeRequirements, resolveContainerParameters } from "./compute-defaults";
import { InvocationStatus } from "./invocation-status";

/** Everything that creates an invocation, from invoke_action or from a trigger. */
export interface InvocationRequest {
  /** The org the invocation is created in (the invoker's). */
  orgId: string;
  /** The user it runs as: the invoking user, or a trigger's service user. */
  submitter: string;
  action: { name: string; ownerOrgId: string; digest?: string | undefined };
  dataSource: { type: string; id: string };
  inputData: string[];
  richInputData?: JsonValue | null;
  uploadDestination?: { bucket: string; prefix: string } | null;
  idempotencyId?: string | undefined;
  /** In the stored shape (the SDK's keys). */
  computeRequirementOverrides?: JsonObject | null;
  containerParameterOverrides?: JsonObject | null;
  parameterValues: JsonObject;
  timeout?: number | undefined;
  source: { type: "Trigger" | "Manual"; id: string };
}

/** A resolved action: the definition at the requested (or current) digest. */
export interface ResolvedAction {
  orgId: string;
  name: string;
  digest: string;
  definition: ActionDefinition;
}

/**
 * Finds the action an org may invoke: its own, or another org's on the Action Hub. A private
 * action of another org is reported as not found, so its existence does not leak. A digest other
 * than the current one must be one the action has had.
 */
export async function resolveInvocableAction(
  em: EntityManager,
  callerOrgId: string,
  ref: { name: string; ownerOrgId: string; digest?: string | undefined },
): Promise<ResolvedAction> {
  const action = await em.findOne(Action, { orgId: ref.ownerOrgId, name: ref.name });
  if (!action || (action.orgId !== callerOrgId && action.accessibility !== "action_hub")) throw notFound("action", ref.name);
  if (!ref.digest || ref.digest === action.digest) {
    return { orgId: action.orgId, name: action.name, digest: action.digest, definition: action.definition };
  }
  const version = await em.findOne(ActionVersion, { orgId: action.orgId, name: action.name, digest: ref.digest });
  if (!version) throw notFound("action digest", `${ref.name}@${ref.digest}`);
  return { orgId: action.orgId, name: action.name, digest: version.digest, definition: version.definition };
}

/**
 * Creates a Queued invocation, or returns the one already created under the same idempotency id
 * (`created` false). Parameter values are checked against the action's parameters: unknown names
 * and missing required ones are refused; defaults fill the optional ones left out.
 */
export async function createInvocation(em: EntityManager, request: InvocationRequest): Promise<{ row: InvocationRecord; created: boolean }> {
  if (request.idempotencyId) {
    const existing = await em.findOne(Invocation, { orgId: request.orgId, idempotencyId: request.idempotencyId });
    if (existing) return { row: existing, created: false };
  }
  const action = await resolveInvocableAction(em, request.orgId, request.action);
  const row = newInvocationRow(request, action);
  const inserted = await em.getConnection().execute<{ invocation_id: string }[]>(
    `insert into invocations (${INSERT_COLUMNS.join(", ")}) values (${INSERT_COLUMNS.map((c) => (c === "input_data" ? "?::text[]" : "?")).join(", ")})
     on conflict (org_id, idempotency_id) where idempotency_id is not null do nothing
     returning invocation_id`,
    insertValues(row),
  );
  if (inserted.length === 0) {
    // A concurrent request with the same idempotency id won the race: answer with its invocation.
    const winner = await em.findOneOrFail(Invocation, { orgId: request.orgId, idempotencyId: request.idempotencyId! });
    return { row: winner, created: false };
  }
  return { row: await em.findOneOrFail(Invocation, { invocationId: row.invocationId }, { refresh: true }), created: true };
}

function newInvocationRow(request: InvocationRequest, action: ResolvedAction): InvocationRecord {
  const now = new Date();
  const definition = action.definition;
  return {
    invocationId: newId("iv"),
    orgId: request.orgId,
    actionOrgId: action.orgId,
    actionName: action.name,
    actionDigest: action.digest,
    dataSourceType: request.dataSource.type,
    dataSourceId: request.dataSource.id,
    inputData: request.inputData,
    richInputData: request.richInputData ?? null,
    uploadDestination: request.uploadDestination ?? null,
    idempotencyId: request.idempotencyId ?? null,
    computeRequirements: resolveComputeRequirements(
      definition.compute_requirements as JsonObject | null,
      request.computeRequirementOverrides,
      "compute_requirement_overrides",
    ),
    containerParameters: resolveContainerParameters(definition.container_parameters as JsonObject | null, request.containerParameterOverrides),
    parameterValues: resolveParameterValues(definition, request.parameterValues),
    sourceType: request.source.type,
    sourceId: request.source.id,
    createdBy: request.submitter,
    containerImageUri: typeof definition.uri === "string" ? definition.uri : null,
    containerImageDigest: null,
    timeout: checkTimeout(request.timeout ?? (definition.timeout as number | null) ?? DEFAULT_TIMEOUT_MINUTES, "timeout"),
    lastStatus: InvocationStatus.Queued,
    statusHistory: [{ status: InvocationStatus.Queued, detail: null, timestamp: now.toISOString() }],
    lastHeartbeat: null,
    created: now,
    finished: null,
    started: null,
    leaseId: null,
    leaseRunner: null,
    leaseExpires: null,
    attempts: 0,
  };
}

interface ParameterDefinition {
  name: string;
  required?: boolean;
  default?: string | null;
}

/** Checks parameter values against the action's parameters (unknown or missing required ones are 400s) and fills in defaults. */
export function resolveParameterValues(definition: ActionDefinition, given: JsonObject): JsonObject {
  const parameters = ((definition.parameters as unknown as ParameterDefinition[] | undefined) ?? []);
  const known = new Map(parameters.map((p) => [p.name, p]));
  for (const name of Object.keys(given)) {
    if (!known.has(name)) {
      const names = parameters.map((p) => p.name).join(", ") || "none";
      throw invalidArgument(`parameter_values.${name}`, `is not a parameter of this action (its parameters: ${names})`);
    }
  }
  const values: JsonObject = { ...given };
  for (const parameter of parameters) {
    if (values[parameter.name] !== undefined && values[parameter.name] !== null) continue;
    if (parameter.required) throw invalidArgument(`parameter_values.${parameter.name}`, "is required by the action");
    if (parameter.default !== undefined && parameter.default !== null) values[parameter.name] = parameter.default;
  }
  return values;
}

const INSERT_COLUMNS = [
  "invocation_id", "org_id", "action_org_id", "action_name", "action_digest", "data_source_type", "data_source_id",
  "input_data", "rich_input_data", "upload_destination", "idempotency_id", "compute_requirements", "container_parameters",
  "parameter_values", "source_type", "source_id", "created_by", "container_image_uri", "container_image_digest", "timeout",
  "last_status", "status_history", "created", "attempts",
];

function insertValues(row: InvocationRecord): unknown[] {
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  return [
    row.invocationId, row.orgId, row.actionOrgId, row.actionName, row.actionDigest, row.dataSourceType, row.dataSourceId,
    textArrayLiteral(row.inputData), json(row.richInputData), json(row.uploadDestination), row.idempotencyId, json(row.computeRequirements),
    json(row.containerParameters), json(row.parameterValues), row.sourceType, row.sourceId, row.createdBy,
    row.containerImageUri, row.containerImageDigest, row.timeout, row.lastStatus, json(row.statusHistory), row.created, row.attempts,
  ];
}
