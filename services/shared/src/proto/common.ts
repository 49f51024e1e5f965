/** Messages shared by every service (QuerySpecification, changesets, permissions) and the request-field limits option. */
export * from "../gen/hangar/common/v1/common_pb";
export * from "../gen/hangar/common/v1/limits_pb";
