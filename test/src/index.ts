export * from "./database";
export * from "./http";
export * from "./platform";
export * from "./wait";
export * from "./expectations";
export * from "./uploads";
export * from "./devices";
export * from "./kafka-offsets";
