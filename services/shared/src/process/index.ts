export * from "./parent-watchdog";
export * from "./node-flags";
