export { createEmbeddedObjectStore, type EmbeddedObjectStore, type StoreLocation } from "./embedded-object-store";
export type { EmbeddedObjectStoreOptions, ObjectStoreLogger } from "./embedded-object-store-options";
export type { DirectOperations, ObjectHead } from "./direct-operations";
export type { AccessMode, ScopedCredentials } from "./scoped-credentials";
export { S3Error, type S3ErrorCode } from "./s3-error";
