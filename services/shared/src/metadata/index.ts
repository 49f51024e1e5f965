export * from "./changeset";
