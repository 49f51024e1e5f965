export * from "./database";
export * from "./prepared-query";
export * from "./timestamp-from-row";
export * from "./array-literal";
export * from "./unavailable";
export * from "./unit-of-work";
