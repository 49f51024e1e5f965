/** The google.api HTTP and field-behavior annotations the gateway reads. */
export * from "../gen/google/api/annotations_pb";
export * from "../gen/google/api/http_pb";
export * from "../gen/google/api/field_behavior_pb";
