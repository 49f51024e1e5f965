export * from "./rpc-server";
export * from "./rpc-client";
export * from "./run-service";
export * from "./service-main";
