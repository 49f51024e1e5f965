/** Messages shared by every service (QuerySpecification, changesets, permissions). */
export * from "../gen/hangar/common/v1/common_pb";
