/** The registry service's API (hangar.registry.v1). */
export * from "../gen/hangar/registry/v1/registry_service_pb";
