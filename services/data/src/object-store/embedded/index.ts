export { createEmbeddedObjectStore, type EmbeddedObjectStore } from "./embedded-object-store";
export type { EmbeddedObjectStoreOptions, ObjectStoreLogger } from "./embedded-object-store-options";
export { S3Error, type S3ErrorCode } from "./s3-error";
