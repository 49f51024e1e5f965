export * from "./errors";
export * from "./quote";
