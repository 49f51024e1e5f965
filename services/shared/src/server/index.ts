export * from "./rpc-server";
export * from "./run-service";
export * from "./service-main";
export * from "./service-client";
export * from "./periodic-task";
export * from "./grpc-message";
export * from "./startup-failure";
export * from "./health";
