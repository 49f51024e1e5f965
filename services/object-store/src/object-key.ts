import { S3Error } from "./s3-error";

/** S3's limit on key length, in UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;

/**
 * Refuses keys that cannot map safely onto a file path: NUL bytes, `.` or `..` segments, and empty
 * segments (a leading, doubled or trailing slash), which the file system would fold into other keys.
 */
export function validateObjectKey(key: string): void {
  if (key === "") throw new S3Error("InvalidArgument", "The object key must not be empty.");
  if (Buffer.byteLength(key, "utf8") > MAX_KEY_BYTES) {
    throw new S3Error("KeyTooLongError", "Your key is too long.");
  }
  if (key.includes("\0")) throw new S3Error("InvalidArgument", "Object keys must not contain NUL bytes.");
  for (const segment of key.split("/")) {
    if (segment === "." || segment === "..") {
      throw new S3Error("InvalidArgument", "Object keys must not contain '.' or '..' segments.");
    }
    if (segment === "") {
      throw new S3Error("InvalidArgument", "Object keys must not start or end with '/' or contain '//'.");
    }
  }
}

/** Orders keys as S3 lists them: by their UTF-8 bytes (JavaScript compares UTF-16 units). */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
