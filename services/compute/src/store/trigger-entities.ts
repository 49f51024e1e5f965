import { EntitySchema } from "@mikro-orm/core";
import type { TriggerDispatchRecord, TriggerEvaluationRecord, TriggerRecord } from "../domain/records";

/** The `triggers` table. */
export const Trigger = new EntitySchema<TriggerRecord>({
  name: "Trigger",
  tableName: "triggers",
  properties: {
    triggerId: { type: "string", primary: true },
    orgId: { type: "string" },
    name: { type: "string" },
    actionName: { type: "string" },
    actionOwnerId: { type: "string" },
    actionDigest: { type: "string", nullable: true },
    requiredInputs: { type: "string[]" },
    additionalInputs: { type: "string[]" },
    causes: { type: "string[]" },
    forEach: { type: "string" },
    enabled: { type: "boolean" },
    condition: { type: "json", nullable: true },
    computeRequirementOverrides: { type: "json", nullable: true },
    containerParameterOverrides: { type: "json", nullable: true },
    parameterValues: { type: "json" },
    serviceUserId: { type: "string" },
    timeout: { type: "integer", nullable: true },
    created: { type: "Date" },
    createdBy: { type: "string" },
    modified: { type: "Date" },
    modifiedBy: { type: "string" },
    serviceUserGrantedBy: { type: "string" },
    engine: { type: "string" },
    firesOn: { type: "json", nullable: true },
    targets: { type: "json", nullable: true },
    managedBy: { type: "json", nullable: true },
    nextFireAt: { type: "Date", nullable: true },
  },
});

/** The `trigger_evaluations` table: `status` goes from `pending` to `evaluated` (with an outcome) or `failed` (with a detail). */
export const TriggerEvaluation = new EntitySchema<TriggerEvaluationRecord>({
  name: "TriggerEvaluation",
  tableName: "trigger_evaluations",
  properties: {
    triggerEvaluationId: { type: "bigint", primary: true, autoincrement: true },
    triggerId: { type: "string" },
    orgId: { type: "string" },
    dataSourceType: { type: "string" },
    dataSourceId: { type: "string" },
    transactionId: { type: "string", nullable: true },
    evaluationStart: { type: "Date" },
    evaluationEnd: { type: "Date", nullable: true },
    status: { type: "string" },
    statusDetail: { type: "string", nullable: true },
    outcome: { type: "string", nullable: true },
    outcomeReason: { type: "string", nullable: true },
    cause: { type: "string", nullable: true },
  },
});

/** The `trigger_dispatches` table: one row per trigger, idempotency token and target (unique). */
export const TriggerDispatch = new EntitySchema<TriggerDispatchRecord>({
  name: "TriggerDispatch",
  tableName: "trigger_dispatches",
  properties: {
    dispatchId: { type: "bigint", primary: true, autoincrement: true },
    triggerId: { type: "string" },
    orgId: { type: "string" },
    idempotencyToken: { type: "string" },
    targetId: { type: "string" },
    targetType: { type: "string" },
    eventType: { type: "string" },
    eventId: { type: "string" },
    subject: { type: "string" },
    datasetId: { type: "string", nullable: true },
    status: { type: "string" },
    statusDetail: { type: "string", nullable: true },
    resultRef: { type: "string", nullable: true },
    claimedAt: { type: "Date" },
    finalizedAt: { type: "Date", nullable: true },
  },
});

/** The trigger tables' entities, appended to the compute service's. */
export const triggerEntities = [Trigger, TriggerEvaluation, TriggerDispatch];
