/** The compute service's API (hangar.compute.v1). */
export * from "../gen/hangar/compute/v1/compute_service_pb";
