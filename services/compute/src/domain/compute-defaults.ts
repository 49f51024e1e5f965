import type { JsonObject } from "@bufbuild/protobuf";
import { definedOnly, invalidArgument } from "@hangar/shared";

/** What an action runs with when neither it nor the invocation says otherwise (the client SDK's defaults). */
export const DEFAULT_COMPUTE_REQUIREMENTS = { vCPU: 512, memory: 1024, gpu: false, storage: 21 } as const;

/**
 * Timeouts are whole minutes, as the client SDK documents them (`Action.create(timeout=60)` is an
 * hour). An invocation's timeout when neither the action nor the request sets one: 30 minutes.
 */
export const DEFAULT_TIMEOUT_MINUTES = 30;
/** The longest timeout an invocation may ask for: 12 hours. */
export const MAX_TIMEOUT_MINUTES = 12 * 60;

const ALLOWED_VCPU = [256, 512, 1024, 2048, 4096, 8192, 16384];

/**
 * Lays `overrides` over `base` (both in the stored shape, the SDK's keys) and checks the result:
 * vCPU one of the allowed sizes, memory positive, storage at least 21 GiB, no GPU.
 */
export function resolveComputeRequirements(base: JsonObject | null | undefined, overrides: JsonObject | null | undefined, field: string): JsonObject {
  const merged = { ...DEFAULT_COMPUTE_REQUIREMENTS, ...definedOnly(base ?? {}), ...definedOnly(overrides ?? {}) };
  if (!ALLOWED_VCPU.includes(Number(merged.vCPU))) {
    throw invalidArgument(`${field}.vCPU`, `must be one of ${ALLOWED_VCPU.join(", ")}`);
  }
  if (!Number.isInteger(merged.memory) || Number(merged.memory) <= 0) throw invalidArgument(`${field}.memory`, "must be a positive number of MiB");
  if (!Number.isInteger(merged.storage) || Number(merged.storage) < 21) throw invalidArgument(`${field}.storage`, "must be at least 21 GiB");
  if (merged.gpu !== false) throw invalidArgument(`${field}.gpu`, "GPUs are not supported");
  return merged;
}

/** Lays container parameter overrides over the action's: a key the override sets replaces the action's. */
export function resolveContainerParameters(base: JsonObject | null | undefined, overrides: JsonObject | null | undefined): JsonObject {
  return { command: null, entry_point: null, env_vars: null, workdir: null, ...definedOnly(base ?? {}), ...definedOnly(overrides ?? {}) };
}

/** Checks a timeout in minutes; `field` names it in the error. */
export function checkTimeout(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_MINUTES) {
    throw invalidArgument(field, `must be a whole number of minutes from 1 to ${MAX_TIMEOUT_MINUTES}`);
  }
  return value;
}


/**
 * How many invocations of one org may run at once unless configured (`INVOCATION_CONCURRENCY_LIMIT`).
 * Runners claim within it and queue_status reports it.
 */
export const DEFAULT_CONCURRENCY_LIMIT = 4;
