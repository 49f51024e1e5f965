export * from "./ids";
