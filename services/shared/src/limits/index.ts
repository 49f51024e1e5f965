export * from "./check-limits";
export * from "./enforce-limits";
export * from "./measure-json";
