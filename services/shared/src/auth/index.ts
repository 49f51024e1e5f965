export * from "./principal";
export * from "./context";
