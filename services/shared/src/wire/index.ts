export * from "./nullable";
