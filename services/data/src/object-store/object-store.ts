import type { Readable } from "node:stream";
import type { AccessMode, ScopedCredentials } from "@hangar/object-store";

/**
 * Short-lived credentials limited to one prefix of the platform's bucket, handed to clients for
 * uploads (`upload_credentials`) and downloads (`dataset_credentials`); the field names follow the
 * wire's upload-credentials item. One definition, the embedded store's, shared by every store.
 */
export type { AccessMode, ScopedCredentials };

/** Where clients reach the store: a custom endpoint (embedded, MinIO, Ceph) or AWS's own. */
export interface StoreLocation {
  bucket: string;
  region: string;
  /** Endpoint URL for S3 clients (path-style addressing); undefined means AWS's default endpoints. */
  endpoint: string | undefined;
}

/** What is known of a stored object. */
export interface ObjectHead {
  size: number;
  etag: string;
}

/**
 * The platform's object storage: file bytes live in an S3-compatible store; the platform keeps
 * records and hands out scoped credentials and presigned URLs. Two implementations: any S3 service
 * (AWS SDK v3), and the embedded default (`@hangar/object-store`: local disk behind the platform's own S3 endpoint).
 */
export interface ObjectStore {
  readonly location: StoreLocation;
  /** Issues credentials for `prefix`, valid for `ttlSeconds` (at least 900). */
  issueCredentials(scope: { prefix: string; mode: AccessMode; ttlSeconds: number }): Promise<ScopedCredentials>;
  /** A presigned single-PUT URL for `key`. */
  presignPut(key: string, options: { expiresInSeconds: number }): Promise<string>;
  /** A presigned GET URL for `key`, optionally overriding the response headers. */
  presignGet(key: string, options: { expiresInSeconds: number; contentDisposition?: string; contentType?: string }): Promise<string>;
  /** The object's size and ETag, or undefined when it does not exist. */
  head(key: string): Promise<ObjectHead | undefined>;
  /** Writes an object (exports, action outputs): streams of unknown length are uploaded in parts. */
  putObject(key: string, body: Buffer | Readable, contentType?: string): Promise<void>;
  getObject(key: string): Promise<Readable>;
  /** Deletes objects; absent keys are not an error. */
  deleteObjects(keys: string[]): Promise<void>;
  close(): Promise<void>;
}

/** The `s3://bucket/key` URI that file records carry (the only scheme clients accept). */
export function s3Uri(bucket: string, key: string): string {
  return `s3://${bucket}/${key}`;
}

/** The key of an `s3://bucket/key` URI. */
export function keyOfUri(uri: string): string {
  return uri.replace(/^s3:\/\/[^/]+\//, "");
}
