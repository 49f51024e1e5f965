export * from "./runner";
export * from "./runner-options";
export * from "./executors";
// The built-in ingestion action (ingest/) talks to the gateway and uploads files the way the runner does.
export * from "./gateway-client";
export { uploadOutputs, type OutputDestination } from "./outputs";
