import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { TriggerSettings } from "./triggers";

/**
 * The compute service's records as its use cases read and change them. `store/` maps them to
 * tables (its entities are typed by these), so the rules never depend on the ORM.
 */

/**
 * An action's definition as the wire shows it (the JSON of hangar.compute.v1.Action minus the
 * bookkeeping fields). Kept as JSON so that a definition snapshotted under an old digest reads
 * back exactly as it was.
 */
export type ActionDefinition = JsonObject;

/** An action: the current definition of a name in its org. */
export interface ActionRecord {
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
export interface ActionVersionRecord {
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
export interface InvocationRecord {
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
  /** Minutes. */
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
export interface InvocationLogRecord {
  seq: string;
  invocationId: string;
  process: string;
  log: string;
  partialId: string | null;
  timestamp: Date;
}

/** A trigger: invokes an action when new data of its org satisfies its inputs and condition. */
export interface TriggerRecord extends TriggerSettings {
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
  /** `v1`: created with causes/for_each (the legacy columns hold it); `v2`: created with fires_on/targets. */
  engine: TriggerEngine;
  /** A v2 trigger's EventSubscription or Schedule (null for v1, which is projected on read). */
  firesOn: JsonObject | null;
  /** A v2 trigger's TriggerTargetSpec list (null for v1). */
  targets: JsonObject[] | null;
  /** A ManagedBy object, or null for a trigger a user created. */
  managedBy: JsonObject | null;
  /** An enabled v2 schedule trigger's next due tick, which the scheduler claims; null otherwise. */
  nextFireAt: Date | null;
}

/** Which trigger model a trigger was created with. */
export type TriggerEngine = "v1" | "v2";

/** One target of a trigger run for one matched event (the client SDK's TriggerDispatchRecord). */
export interface TriggerDispatchRecord {
  /** A bigserial: the keyset of dispatch listings. */
  dispatchId: string;
  triggerId: string;
  orgId: string;
  idempotencyToken: string;
  targetId: string;
  targetType: string;
  eventType: string;
  eventId: string;
  subject: string;
  datasetId: string | null;
  /** `claimed`, `dispatched` or `failed`. */
  status: string;
  statusDetail: string | null;
  resultRef: string | null;
  claimedAt: Date;
  finalizedAt: Date | null;
}

/** One evaluation of a trigger against a data source, from `pending` to `evaluated` or `failed`. */
export interface TriggerEvaluationRecord {
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
