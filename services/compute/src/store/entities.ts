import { EntitySchema } from "@mikro-orm/core";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { triggerEntities } from "./trigger-entities";

/**
 * An action's definition as the wire shows it (the JSON of hangar.compute.v1.Action minus the
 * bookkeeping fields). Kept as JSON so that a definition snapshotted under an old digest reads
 * back exactly as it was.
 */
export type ActionDefinition = JsonObject;

/** An action: the current definition of a name in its org. */
export interface ActionRow {
  orgId: string;
  name: string;
  /** `organization` or `action_hub`. */
  accessibility: string;
  definition: ActionDefinition;
  digest: string;
  metadata: JsonObject;
  tags: string[];
  published: Date | null;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** Every definition an action has had, by digest, so earlier digests stay invocable. */
export interface ActionVersionRow {
  orgId: string;
  name: string;
  digest: string;
  definition: ActionDefinition;
  created: Date;
}

/** One entry of an invocation's status history. */
export interface StatusEntry {
  status: number;
  detail: string | null;
  /** ISO 8601. */
  timestamp: string;
}

/** An invocation: one run of an action (at a digest) on a data source. */
export interface InvocationRow {
  invocationId: string;
  orgId: string;
  actionOrgId: string;
  actionName: string;
  actionDigest: string;
  dataSourceType: string;
  dataSourceId: string;
  inputData: string[];
  richInputData: JsonValue | null;
  /** `{bucket, prefix}`. */
  uploadDestination: JsonObject | null;
  idempotencyId: string | null;
  /** The effective requirements and parameters: the action's, with the overrides applied. */
  computeRequirements: JsonObject;
  containerParameters: JsonObject;
  parameterValues: JsonObject;
  /** `Trigger` or `Manual`. */
  sourceType: string;
  /** The trigger id, or the invoking user. */
  sourceId: string;
  /** The user who submitted it (for a trigger, its service user). */
  createdBy: string;
  containerImageUri: string | null;
  containerImageDigest: string | null;
  /** Seconds. */
  timeout: number;
  lastStatus: number;
  statusHistory: StatusEntry[];
  lastHeartbeat: Date | null;
  created: Date;
  /** When it entered a final status (Completed, Cancelled, Failed, Deadly). */
  finished: Date | null;
  /** When a runner first claimed it: the timeout runs from here. */
  started: Date | null;
  /** The runner lease, while one holds it. */
  leaseId: string | null;
  leaseRunner: string | null;
  leaseExpires: Date | null;
  /** How many times a runner has claimed it. */
  attempts: number;
}

/** One log line of an invocation; `seq` orders lines and is the paging cursor. */
export interface InvocationLogRow {
  seq: string;
  invocationId: string;
  process: string;
  log: string;
  partialId: string | null;
  timestamp: Date;
}

export const Action = new EntitySchema<ActionRow>({
  name: "Action",
  tableName: "actions",
  properties: {
    orgId: { type: "string", primary: true },
    name: { type: "string", primary: true },
    accessibility: { type: "string" },
    definition: { type: "json" },
    digest: { type: "string" },
    metadata: { type: "json" },
    tags: { type: "string[]" },
    published: { type: "Date", nullable: true },
    created: { type: "Date" },
    createdBy: { type: "string" },
    modified: { type: "Date" },
    modifiedBy: { type: "string" },
  },
});

export const ActionVersion = new EntitySchema<ActionVersionRow>({
  name: "ActionVersion",
  tableName: "action_versions",
  properties: {
    orgId: { type: "string", primary: true },
    name: { type: "string", primary: true },
    digest: { type: "string", primary: true },
    definition: { type: "json" },
    created: { type: "Date" },
  },
});

export const Invocation = new EntitySchema<InvocationRow>({
  name: "Invocation",
  tableName: "invocations",
  properties: {
    invocationId: { type: "string", primary: true },
    orgId: { type: "string" },
    actionOrgId: { type: "string" },
    actionName: { type: "string" },
    actionDigest: { type: "string" },
    dataSourceType: { type: "string" },
    dataSourceId: { type: "string" },
    inputData: { type: "string[]" },
    richInputData: { type: "json", nullable: true },
    uploadDestination: { type: "json", nullable: true },
    idempotencyId: { type: "string", nullable: true },
    computeRequirements: { type: "json" },
    containerParameters: { type: "json" },
    parameterValues: { type: "json" },
    sourceType: { type: "string" },
    sourceId: { type: "string" },
    createdBy: { type: "string" },
    containerImageUri: { type: "string", nullable: true },
    containerImageDigest: { type: "string", nullable: true },
    timeout: { type: "integer" },
    lastStatus: { type: "integer" },
    statusHistory: { type: "json" },
    lastHeartbeat: { type: "Date", nullable: true },
    created: { type: "Date" },
    finished: { type: "Date", nullable: true },
    started: { type: "Date", nullable: true },
    leaseId: { type: "string", nullable: true },
    leaseRunner: { type: "string", nullable: true },
    leaseExpires: { type: "Date", nullable: true },
    attempts: { type: "integer" },
  },
});

export const InvocationLog = new EntitySchema<InvocationLogRow>({
  name: "InvocationLog",
  tableName: "invocation_logs",
  properties: {
    seq: { type: "bigint", primary: true, autoincrement: true },
    invocationId: { type: "string" },
    process: { type: "string" },
    log: { type: "text" },
    partialId: { type: "string", nullable: true },
    timestamp: { type: "Date" },
  },
});

export const computeEntities = [Action, ActionVersion, Invocation, InvocationLog, ...triggerEntities];
