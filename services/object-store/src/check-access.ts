import type { StoredCredential } from "./credential-store";
import { S3Error } from "./s3-error";

/** What an operation touches: an object (read or write), a listing under a prefix, or the bucket itself. */
export type Access =
  | { action: "read" | "write"; key: string }
  | { action: "list"; prefix: string }
  | { action: "bucket" };

/**
 * Refuses (403 AccessDenied) what a credential's scope does not allow: writes need ReadWrite, and every
 * key or list prefix must start with the credential's `requiredPrefix`. Bucket-level reads (HeadBucket,
 * the bucket's location) need only a valid credential, since the bucket's name is in every credential.
 */
export function checkAccess(credential: StoredCredential, access: Access): void {
  if (access.action === "bucket") return;
  if (access.action === "write" && credential.mode !== "ReadWrite") {
    throw new S3Error("AccessDenied", "Access Denied: these credentials are read-only.");
  }
  const path = access.action === "list" ? access.prefix : access.key;
  if (!path.startsWith(credential.requiredPrefix)) {
    throw new S3Error("AccessDenied", `Access Denied: these credentials are limited to keys under '${credential.requiredPrefix}'.`);
  }
}
