export * from "./runner";
export * from "./runner-options";
export * from "./executors";
