import { EntitySchema } from "@mikro-orm/core";
import type { TriggerSettings } from "../domain/triggers";

/** A trigger: invokes an action when new data of its org satisfies its inputs and condition. */
export interface TriggerRow extends TriggerSettings {
  triggerId: string;
  orgId: string;
  /** Unique in the org. */
  name: string;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
  /** Who last named the service user: evaluation checks that they still may have it run as that user. */
  serviceUserGrantedBy: string;
}

/** One evaluation of a trigger against a data source, from `pending` to `evaluated` or `failed`. */
export interface TriggerEvaluationRow {
  /** A bigserial: a string here, an integer on the wire. */
  triggerEvaluationId: string;
  triggerId: string;
  orgId: string;
  dataSourceType: string;
  dataSourceId: string;
  /** The upload the evaluation considered; one evaluation per trigger and upload. */
  transactionId: string | null;
  evaluationStart: Date;
  evaluationEnd: Date | null;
  status: string;
  statusDetail: string | null;
  outcome: string | null;
  outcomeReason: string | null;
  cause: string | null;
}

/** The `triggers` table. */
export const Trigger = new EntitySchema<TriggerRow>({
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
  },
});

/** The `trigger_evaluations` table: `status` goes from `pending` to `evaluated` (with an outcome) or `failed` (with a detail). */
export const TriggerEvaluation = new EntitySchema<TriggerEvaluationRow>({
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

/** The trigger tables' entities, appended to the compute service's. */
export const triggerEntities = [Trigger, TriggerEvaluation];
