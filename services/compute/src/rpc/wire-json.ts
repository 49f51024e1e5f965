import { toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import { definedOnly } from "@hangar/shared";
import type { ComputeRequirements, ContainerParameters } from "@hangar/shared/proto/compute";

/**
 * A google.protobuf.Value request field as plain JSON: undefined when the field was omitted, null for
 * JSON null (a Value without a kind, possible from a gRPC client, is null too).
 */
export function valueJson(value: Value | undefined): JsonValue | undefined {
  if (value === undefined) return undefined;
  return value.kind.case === undefined ? null : toJson(ValueSchema, value);
}

/**
 * Compute requirements in the stored shape (the client SDK's keys), with only the keys the request
 * sets: the defaults (or the action's values) fill the rest when the requirements are resolved.
 */
export function computeRequirementsJson(message: ComputeRequirements): JsonObject {
  const { vCPU, memory, gpu, storage } = message;
  return definedOnly({ vCPU, memory, gpu, storage });
}

/**
 * Container parameters in the stored shape, with only what is set. proto3 cannot tell an empty list
 * or map from an absent one, so both mean unset: the action's value (or none) applies.
 */
export function containerParametersJson(message: ContainerParameters): JsonObject {
  const set: JsonObject = {};
  if (message.command.length > 0) set.command = message.command;
  if (message.entryPoint.length > 0) set.entry_point = message.entryPoint;
  if (Object.keys(message.envVars).length > 0) set.env_vars = message.envVars;
  if (message.workdir !== undefined) set.workdir = message.workdir;
  return set;
}
