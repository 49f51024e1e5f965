export * from "./nullable";
export * from "./format-iso-timestamp";
export * from "./local-forms";
