import type { JsonObject } from "@bufbuild/protobuf";
import type { TriggerRecord } from "./records";
import { parseSource, type TriggerSource } from "./trigger-definition";

// A v1 trigger's causes as the platform events that start its evaluations.
const CAUSE_EVENTS: Record<string, string> = {
  file_upload: "dataset.upload_completed",
  file_ingest: "file.ingested",
  dataset_metadata_update: "dataset.metadata_updated",
  file_metadata_update: "file.metadata_updated",
};

/**
 * A trigger in the 0.62 model's terms: a v2 trigger as stored; a v1 (causes/for_each) one
 * projected, so `Trigger.list`/`from_id` read every trigger (its one target is the action,
 * `target_id` "action", fired once per dataset or per file).
 */
export function modelView(row: TriggerRecord): { firesOn: JsonObject; targets: JsonObject[] } {
  if (row.engine === "v2") return { firesOn: row.firesOn!, targets: row.targets! };
  const target: JsonObject = {
    type: "invoke_action",
    target_id: "action",
    action: { name: row.actionName, digest: row.actionDigest, owner: row.actionOwnerId },
    required_inputs: row.requiredInputs,
    additional_inputs: row.additionalInputs,
    parameter_values: row.parameterValues,
    compute_requirement_overrides: row.computeRequirementOverrides,
    container_parameter_overrides: row.containerParameterOverrides,
    timeout: row.timeout,
  };
  const events = row.causes.map((cause) => CAUSE_EVENTS[cause] ?? cause);
  return { firesOn: { type: "events", events, once_per: row.forEach === "dataset_file" ? "file" : "dataset" }, targets: [target] };
}

/** A stored v2 trigger's source, parsed (it was checked when saved). */
export function storedSource(row: TriggerRecord): TriggerSource {
  return parseSource(row.firesOn!, "fires_on");
}
