/** The compute service's API (hangar.compute.v1). */
export * from "../gen/hangar/compute/v1/action_pb";
export * from "../gen/hangar/compute/v1/compute_requirements_pb";
export * from "../gen/hangar/compute/v1/compute_service_pb";
export * from "../gen/hangar/compute/v1/ingestion_rule_pb";
export * from "../gen/hangar/compute/v1/invocation_pb";
export * from "../gen/hangar/compute/v1/runner_pb";
export * from "../gen/hangar/compute/v1/trigger_pb";
export * from "../gen/hangar/compute/v1/trigger_v2_pb";
export * from "../gen/hangar/compute/v1/scheduled_trigger_pb";
