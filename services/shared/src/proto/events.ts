/** Event payloads carried on Kafka topics (hangar.events.v1). */
export * from "../gen/hangar/events/v1/dataset_events_pb";
export * from "../gen/hangar/events/v1/upload_events_pb";
export * from "../gen/hangar/events/v1/file_events_pb";
export * from "../gen/hangar/events/v1/comment_events_pb";
export * from "../gen/hangar/events/v1/compute_events_pb";
