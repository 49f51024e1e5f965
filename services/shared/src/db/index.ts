export * from "./database";
export * from "./prepared-query";
