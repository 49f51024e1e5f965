import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { invalidArgument, newId, notFound, quoteValue } from "@hangar/shared";
import type { ActionDefinition, InvocationRecord } from "./records";
import type { ActionRepository, InvocationRepositories } from "./repositories";
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
  actions: ActionRepository,
  callerOrgId: string,
  ref: { name: string; ownerOrgId: string; digest?: string | undefined },
): Promise<ResolvedAction> {
  const action = await actions.find(ref.ownerOrgId, ref.name);
  if (!action || (action.orgId !== callerOrgId && action.accessibility !== "action_hub")) throw notFound("action", ref.name);
  if (!ref.digest || ref.digest === action.digest) {
    return { orgId: action.orgId, name: action.name, digest: action.digest, definition: action.definition };
  }
  const version = await actions.findVersion(action.orgId, action.name, ref.digest);
  if (!version) throw notFound("action digest", `${ref.name}@${ref.digest}`);
  return { orgId: action.orgId, name: action.name, digest: version.digest, definition: version.definition };
}

/**
 * Creates a Queued invocation, or returns the one already created under the same idempotency id
 * (`created` false). Parameter values are checked against the action's parameters: unknown names
 * and missing required ones are refused; defaults fill the optional ones left out.
 */
export async function createInvocation(
  { actions, invocations }: InvocationRepositories,
  request: InvocationRequest,
): Promise<{ row: InvocationRecord; created: boolean }> {
  if (request.idempotencyId) {
    const existing = await invocations.findByIdempotencyId(request.orgId, request.idempotencyId);
    if (existing) return { row: existing, created: false };
  }
  const action = await resolveInvocableAction(actions, request.orgId, request.action);
  const inserted = await invocations.insert(newInvocationRow(request, action));
  if (inserted) return { row: inserted, created: true };
  // A concurrent request with the same idempotency id won the race: answer with its invocation.
  const winner = await invocations.findByIdempotencyId(request.orgId, request.idempotencyId!);
  if (!winner) throw new Error(`invocation with idempotency id ${quoteValue(request.idempotencyId!)} vanished after a conflicting insert`);
  return { row: winner, created: false };
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
