import { fromJson, toJson, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import { invalidArgument, nullableString } from "@hangar/shared";
import {
  ActionReferenceSchema,
  ComputeRequirementsSchema,
  ContainerParametersSchema,
  type ActionParameter,
  type ActionParameterChangeset,
  type ActionReference,
  type ActionSchema,
  type CreateActionRequest,
  type UpdateActionRequest,
} from "@hangar/shared/proto/compute";
import {
  definitionFields,
  nullableBoolean,
  nullableInteger,
  parameterDefault,
  type ActionDefinitionFields,
  type ActionParameterDef,
  type ActionReferenceDef,
  type DefinitionChanges,
  type ParameterChanges,
} from "../domain/actions";
import type { ActionDefinition, ActionRecord } from "../domain/records";
import { computeRequirementsJson, containerParametersJson } from "./wire-json";
import { computeRequirementsToProto, containerParametersToProto } from "./invocation-mappers";

type ActionInit = MessageInitShape<typeof ActionSchema>;

/** Action row to its wire record at its current digest. */
export function actionToProto(row: ActionRecord): ActionInit {
  return actionDefinitionToProto(row, { digest: row.digest, definition: row.definition });
}

/**
 * The action as it was at an earlier digest: that version's definition with the action's
 * bookkeeping (org, name, accessibility, metadata, tags, timestamps), which a digest does not cover.
 */
export function actionDefinitionToProto(row: ActionRecord, version: { digest: string; definition: ActionDefinition }): ActionInit {
  const definition = definitionFields(version.definition);
  return {
    created: timestampFromDate(row.created),
    createdBy: row.createdBy,
    modified: timestampFromDate(row.modified),
    modifiedBy: row.modifiedBy,
    name: row.name,
    orgId: row.orgId,
    accessibility: row.accessibility,
    digest: version.digest,
    metadata: row.metadata,
    tags: row.tags,
    ...(row.published ? { published: timestampFromDate(row.published) } : {}),
    ...definitionToProto(definition),
  };
}

function definitionToProto(definition: ActionDefinitionFields): ActionInit {
  return {
    ...(definition.compute_requirements ? { computeRequirements: computeRequirementsToProto(definition.compute_requirements) } : {}),
    ...(definition.container_parameters ? { containerParameters: containerParametersToProto(definition.container_parameters) } : {}),
    ...(definition.description !== null ? { description: definition.description } : {}),
    ...(definition.short_description !== null ? { shortDescription: definition.short_description } : {}),
    ...(definition.inherits ? { inherits: referenceToProto(definition.inherits) } : {}),
    parameters: definition.parameters.map((p) => ({
      name: p.name,
      required: p.required,
      ...(p.description !== null ? { description: p.description } : {}),
      ...(p.default !== null ? { default: { kind: { case: "stringValue" as const, value: p.default } } } : {}),
    })),
    ...(definition.requires_downloaded_inputs !== null ? { requiresDownloadedInputs: definition.requires_downloaded_inputs } : {}),
    ...(definition.timeout !== null ? { timeout: BigInt(definition.timeout) } : {}),
    ...(definition.uri !== null ? { uri: definition.uri } : {}),
  };
}

function referenceToProto(reference: ActionReferenceDef): MessageInitShape<typeof ActionReferenceSchema> {
  return {
    name: reference.name,
    ...(reference.digest !== null ? { digest: reference.digest } : {}),
    ...(reference.owner !== null ? { owner: reference.owner } : {}),
  };
}

/** The definition fields a create request sets; fields it leaves out are absent (and may be inherited). */
export function createChangesFromProto(req: CreateActionRequest): DefinitionChanges {
  return {
    ...(req.computeRequirements ? { compute_requirements: computeRequirementsJson(req.computeRequirements) } : {}),
    ...(req.containerParameters ? { container_parameters: containerParametersJson(req.containerParameters) } : {}),
    ...(req.description !== undefined ? { description: req.description } : {}),
    ...(req.shortDescription !== undefined ? { short_description: req.shortDescription } : {}),
    parameters: req.parameters.map(parameterFromProto),
    ...(req.requiresDownloadedInputs !== undefined ? { requires_downloaded_inputs: req.requiresDownloadedInputs } : {}),
    ...(req.timeout !== undefined ? { timeout: Number(req.timeout) } : {}),
    ...(req.uri !== undefined ? { uri: req.uri } : {}),
  };
}

/** The definition fields an update request sets (null where it clears one); omitted fields are absent. */
export function updateChangesFromProto(req: UpdateActionRequest): DefinitionChanges {
  const changes: DefinitionChanges = {
    compute_requirements: messageFromValue(ComputeRequirementsSchema, req.computeRequirements, "compute_requirements", computeRequirementsJson),
    container_parameters: messageFromValue(ContainerParametersSchema, req.containerParameters, "container_parameters", containerParametersJson),
    description: nullableString(req.description, "description"),
    short_description: nullableString(req.shortDescription, "short_description"),
    requires_downloaded_inputs: nullableBoolean(req.requiresDownloadedInputs, "requires_downloaded_inputs"),
    timeout: nullableInteger(req.timeout, "timeout"),
    uri: nullableString(req.uri, "uri"),
  };
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
}

/** An update's `inherits`: undefined when omitted, null when cleared, else the reference. */
export function inheritsFromValue(value: Value | undefined): ActionReferenceDef | null | undefined {
  return messageFromValue(ActionReferenceSchema, value, "inherits", referenceFromProto);
}

/** A reference from the wire; the name is required. */
export function referenceFromProto(reference: ActionReference): ActionReferenceDef {
  if (reference.name === "") throw invalidArgument("inherits.name", "is required");
  return { name: reference.name, digest: reference.digest || null, owner: reference.owner || null };
}

/** A parameter changeset from the wire. */
export function parameterChangesFromProto(changeset: ActionParameterChangeset): ParameterChanges {
  return { put: changeset.putParameters.map(parameterFromProto), remove: changeset.removeParameters };
}

function parameterFromProto(parameter: ActionParameter): ActionParameterDef {
  return {
    name: parameter.name,
    required: parameter.required,
    description: parameter.description ?? null,
    default: parameterDefault(parameter.default ? toJson(ValueSchema, parameter.default) : undefined),
  };
}

/**
 * Reads an update field that carries a message as a google.protobuf.Value (so that null can clear
 * it): undefined when omitted, null when null, else the message read with its JSON names (and
 * proto names, e.g. `memory_MiB` or `memory`) and converted by `convert`. A wrong shape is a 400.
 */
function messageFromValue<Desc extends DescMessage, T>(
  schema: Desc,
  value: Value | undefined,
  field: string,
  convert: (message: MessageShape<Desc>) => T,
): T | null | undefined {
  if (value === undefined) return undefined;
  if (value.kind.case === "nullValue" || value.kind.case === undefined) return null;
  if (value.kind.case !== "structValue") throw invalidArgument(field, "expected an object or null");
  let message: MessageShape<Desc>;
  try {
    message = fromJson(schema, toJson(ValueSchema, value), { ignoreUnknownFields: true });
  } catch (error) {
    throw decodeError(error, field);
  }
  return convert(message);
}

// protobuf-es names the offending member as `<package>.<Message>.<field>`; the error names it under
// the request field instead, as the gateway does for typed fields (`compute_requirements.vCPU: ...`).
const DECODE_ERROR = /^cannot decode field [\w.]+\.(\w+) from JSON: (.*)$/s;

function decodeError(error: unknown, field: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  const match = DECODE_ERROR.exec(message);
  return match ? invalidArgument(`${field}.${match[1]}`, match[2]!) : invalidArgument(field, message);
}
