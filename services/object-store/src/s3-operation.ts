import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthenticatedRequest } from "./authenticate-request";
import type { Access } from "./check-access";
import type { DiskStore } from "./disk-store";
import type { MultipartStore } from "./multipart-store";
import type { ReceivedBody } from "./receive-body";
import type { RequestTarget } from "./request-target";

/** What an operation works with: the request, its verified signer, and the bucket's storage. */
export interface S3Context {
  req: IncomingMessage;
  res: ServerResponse;
  target: RequestTarget;
  auth: AuthenticatedRequest;
  bucket: string;
  region: string;
  /** The object key (validated); empty for bucket-level operations. */
  key: string;
  disk: DiskStore;
  multipart: MultipartStore;
  now: () => Date;
  /** Streams the request body to a temporary file, verified; sends `100 Continue` first when the client waits for it. */
  receiveBody(maxSize: number): Promise<ReceivedBody>;
  /** Reads a small (XML) request body as text, verified the same way. */
  readText(maxSize: number): Promise<string>;
}

/** One S3 operation: what it touches (checked before it runs) and how it answers. */
export interface S3Operation {
  access: Access;
  run(context: S3Context): Promise<void>;
}

/** Request headers kept with an object and replayed on download, as S3 keeps them. */
export function storedHeaders(req: IncomingMessage): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(",") : value;
    if (name.startsWith("x-amz-meta-") || KEPT_HEADERS.has(name)) kept[name] = text;
  }
  // aws-chunked describes the upload, not the object.
  const encoding = kept["content-encoding"]?.split(",").map((part) => part.trim()).filter((part) => part !== "aws-chunked" && part !== "");
  if (encoding !== undefined) {
    if (encoding.length > 0) kept["content-encoding"] = encoding.join(",");
    else delete kept["content-encoding"];
  }
  return kept;
}

const KEPT_HEADERS = new Set(["content-type", "content-disposition", "content-encoding", "content-language", "cache-control", "expires"]);
