import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { nullableTimestampFromRow, timestampFromRow } from "@hangar/shared";
import type { TriggerEngine, TriggerRecord } from "../domain/records";

/**
 * A trigger from its `triggers` row, as a plain record (not tracked): for the reads every event
 * makes of the org's triggers (which react to it), whose results are only read.
 */
export function triggerFromRow(row: Record<string, unknown>): TriggerRecord {
  return {
    triggerId: row.trigger_id as string,
    orgId: row.org_id as string,
    name: row.name as string,
    actionName: row.action_name as string,
    actionOwnerId: row.action_owner_id as string,
    actionDigest: row.action_digest as string | null,
    requiredInputs: row.required_inputs as string[],
    additionalInputs: row.additional_inputs as string[],
    causes: row.causes as string[],
    forEach: row.for_each as string,
    enabled: row.enabled as boolean,
    condition: row.condition as JsonValue | null,
    computeRequirementOverrides: row.compute_requirement_overrides as JsonObject | null,
    containerParameterOverrides: row.container_parameter_overrides as JsonObject | null,
    parameterValues: row.parameter_values as JsonObject,
    serviceUserId: row.service_user_id as string,
    timeout: row.timeout === null ? null : Number(row.timeout),
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
    serviceUserGrantedBy: row.service_user_granted_by as string,
    engine: row.engine as TriggerEngine,
    firesOn: row.fires_on as JsonObject | null,
    targets: row.targets as JsonObject[] | null,
    managedBy: row.managed_by as JsonObject | null,
    nextFireAt: nullableTimestampFromRow(row.next_fire_at),
  };
}
