import type { IncomingHttpHeaders } from "node:http";
import { deleteObjects, getBucketLocation, headBucket, listBuckets } from "./bucket-operations";
import { listObjects, parseListRequest } from "./list-objects";
import {
  abortMultipartUpload,
  completeMultipartUpload,
  createMultipartUpload,
  listParts,
  uploadPart,
} from "./multipart-operations";
import { deleteObject, getObject, putObject } from "./object-operations";
import { validateObjectKey } from "./object-key";
import { hasQueryParam, type RequestTarget } from "./request-target";
import { S3Error } from "./s3-error";
import type { S3Operation } from "./s3-operation";

/** Sub-resources of S3 this endpoint does not serve (ACLs, tagging, versioning and the like). */
const UNSUPPORTED_SUBRESOURCES = [
  "acl", "tagging", "versioning", "versions", "policy", "cors", "lifecycle", "website", "logging",
  "notification", "replication", "encryption", "object-lock", "retention", "legal-hold", "torrent",
  "restore", "select", "attributes", "accelerate", "requestPayment", "analytics", "metrics", "inventory",
  "intelligent-tiering", "ownershipControls", "publicAccessBlock", "uploads",
];

/**
 * Picks the S3 operation of a path-style request from its method, path and query, as S3 does, and what it
 * touches. Object keys are validated here, before any operation sees them.
 */
export function routeOperation(method: string, target: RequestTarget, headers: IncomingHttpHeaders, bucket: string): S3Operation {
  // CopyObject and UploadPartCopy would otherwise pass for writes of their empty bodies.
  if (headers["x-amz-copy-source"] !== undefined) throw notImplemented();
  if (target.bucket === undefined) {
    if (method === "GET") return { access: { action: "bucket" }, run: listBuckets };
    throw methodNotAllowed(method);
  }
  if (target.bucket !== bucket) {
    throw new S3Error("NoSuchBucket", "The specified bucket does not exist.", { BucketName: target.bucket });
  }
  return target.key === undefined ? routeBucket(method, target) : routeObject(method, target, target.key);
}

function routeBucket(method: string, target: RequestTarget): S3Operation {
  const has = (name: string): boolean => hasQueryParam(target, name);
  if (method === "HEAD") return { access: { action: "bucket" }, run: headBucket };
  if (method === "GET" && has("location")) return { access: { action: "bucket" }, run: getBucketLocation };
  if (method === "POST" && has("delete")) return { access: { action: "bucket" }, run: deleteObjects };
  unsupportedSubresource(target);
  if (method === "GET") {
    const request = parseListRequest({ target });
    return { access: { action: "list", prefix: request.prefix }, run: (context) => listObjects(context, request) };
  }
  throw notImplemented();
}

function routeObject(method: string, target: RequestTarget, key: string): S3Operation {
  validateObjectKey(key);
  const has = (name: string): boolean => hasQueryParam(target, name);
  const read = { action: "read", key } as const;
  const write = { action: "write", key } as const;
  if (method === "POST" && has("uploads")) return { access: write, run: createMultipartUpload };
  if (has("uploadId")) {
    if (method === "PUT" && has("partNumber")) return { access: write, run: uploadPart };
    if (method === "POST") return { access: write, run: completeMultipartUpload };
    if (method === "DELETE") return { access: write, run: abortMultipartUpload };
    if (method === "GET") return { access: read, run: listParts };
    throw methodNotAllowed(method);
  }
  unsupportedSubresource(target);
  switch (method) {
    case "GET":
    case "HEAD":
      if (has("partNumber")) throw notImplemented();
      return { access: read, run: getObject };
    case "PUT":
      return { access: write, run: putObject };
    case "DELETE":
      return { access: write, run: deleteObject };
    default:
      throw methodNotAllowed(method);
  }
}

function unsupportedSubresource(target: RequestTarget): void {
  if (UNSUPPORTED_SUBRESOURCES.some((name) => hasQueryParam(target, name))) throw notImplemented();
}

function notImplemented(): S3Error {
  return new S3Error("NotImplemented", "A header or query you provided implies functionality that is not implemented.");
}

function methodNotAllowed(method: string): S3Error {
  return new S3Error("MethodNotAllowed", "The specified method is not allowed against this resource.", { Method: method });
}
