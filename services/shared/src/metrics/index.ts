export * from "./registry";
export * from "./instruments";
export * from "./metrics-server";
export * from "./service-metrics";
