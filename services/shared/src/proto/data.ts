/** The data service's API (hangar.data.v1). */
export * from "../gen/hangar/data/v1/dataset_pb";
export * from "../gen/hangar/data/v1/device_pb";
export * from "../gen/hangar/data/v1/data_service_pb";
export * from "../gen/hangar/data/v1/file_pb";
export * from "../gen/hangar/data/v1/directory_pb";
export * from "../gen/hangar/data/v1/file_link_pb";
export * from "../gen/hangar/data/v1/comment_pb";
export * from "../gen/hangar/data/v1/topic_pb";
export * from "../gen/hangar/data/v1/session_pb";
export * from "../gen/hangar/data/v1/robot_event_pb";
export * from "../gen/hangar/data/v1/collection_pb";
export * from "../gen/hangar/data/v1/robot_data_pb";
export * from "../gen/hangar/data/v1/query_pb";
export * from "../gen/hangar/data/v1/metric_pb";
export * from "../gen/hangar/data/v1/topic_read_pb";
