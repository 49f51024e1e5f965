export * from "./principal";
export * from "./context";
export * from "./invocation-token";
export * from "./runs-as";
