export * from "./errors";
export * from "./quote";
export * from "./http-status";
