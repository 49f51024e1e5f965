/** Messages shared by every service (QuerySpecification, changesets, permissions), the request-field limits option and the internal HealthService. */
export * from "../gen/hangar/common/v1/common_pb";
export * from "../gen/hangar/common/v1/limits_pb";
export * from "../gen/hangar/common/v1/health_pb";
export * from "../gen/hangar/common/v1/json_form_pb";
export * from "../gen/hangar/common/v1/time_value_pb";
export * from "../gen/hangar/common/v1/access_pb";
