export { createS3ObjectStore } from "./s3-object-store";
export { validateS3ObjectStoreOptions, type S3ObjectStoreOptions } from "./s3-object-store-options";
export { createSessionPolicy, type PolicyDocument, type PolicyStatement } from "./session-policy";
