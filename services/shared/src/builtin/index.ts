export * from "./builtin-actions";
