export * from "./nullable";
export * from "./format-iso-timestamp";
