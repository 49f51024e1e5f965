export * from "./parent-watchdog";
export * from "./node-flags";
export * from "./idle-collection";
