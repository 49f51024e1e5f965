/** gRPC's own protocols that every service's port answers: health (`grpc.health.v1`) and server reflection (`v1`, and `v1alpha` as `v1alpha`). */
export * from "../gen/grpc/health/v1/health_pb";
export * from "../gen/grpc/reflection/v1/reflection_pb";
export * as v1alpha from "../gen/grpc/reflection/v1alpha/reflection_pb";
