export * from "./builtin-actions";
export * from "./derived-files";
