export * from "./executor";
export * from "./process-executor";
export * from "./container-executor";
export * from "./launch";
