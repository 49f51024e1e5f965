/** What scoped credentials allow: reading, or reading and writing, below their prefix. */
export type AccessMode = "ReadOnly" | "ReadWrite";

/**
 * Short-lived session credentials limited to one prefix of the store's bucket, for S3 clients: the
 * endpoint refuses their requests outside `requiredPrefix`, writes when read-only, and after `expiration`.
 */
export interface ScopedCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  region: string;
  bucket: string;
  /** Every key the credentials may touch starts with this (no leading slash). */
  requiredPrefix: string;
  expiration: Date;
}
