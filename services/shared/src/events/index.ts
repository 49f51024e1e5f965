export * from "./transport";
export * from "./in-process-transport";
export * from "./kafka-transport";
export * from "./outbox";
export * from "./consumer";
export * from "./tables";
export * from "./topics";
