export * from "./platform";
