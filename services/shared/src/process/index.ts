export * from "./parent-watchdog";
