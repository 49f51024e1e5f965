import { EntitySchema } from "@mikro-orm/core";
import type { ActionRecord, ActionVersionRecord, InvocationLogRecord, InvocationRecord } from "../domain/records";
import { IngestionRule } from "./ingestion-rule-store";
import { triggerEntities } from "./trigger-entities";

/** The `actions` table. */
export const Action = new EntitySchema<ActionRecord>({
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

/** The `action_versions` table. */
export const ActionVersion = new EntitySchema<ActionVersionRecord>({
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

/** The `invocations` table. */
export const Invocation = new EntitySchema<InvocationRecord>({
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

/** The `invocation_logs` table. */
export const InvocationLog = new EntitySchema<InvocationLogRecord>({
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

/** Every entity of the compute service. */
export const computeEntities = [Action, ActionVersion, Invocation, InvocationLog, ...triggerEntities, IngestionRule];
