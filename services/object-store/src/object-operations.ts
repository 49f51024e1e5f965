import { pipeline } from "node:stream/promises";
import { checksumHeaderName } from "./checksum";
import type { ObjectMetadata } from "./disk-store";
import { parseRange } from "./parse-range";
import { evaluatePreconditions } from "./preconditions";
import { S3Error } from "./s3-error";
import type { S3Context } from "./s3-operation";
import { storedHeaders } from "./s3-operation";
import { sendEmpty } from "./s3-response";

/** S3's largest single PUT (and part). */
export const MAX_UPLOAD_SIZE = 5 * 1024 ** 3;

/** PutObject: the body is streamed to disk, verified, then renamed into place. */
export async function putObject(context: S3Context): Promise<void> {
  const body = await context.receiveBody(MAX_UPLOAD_SIZE);
  const etag = `"${body.md5.toString("hex")}"`;
  await context.disk.commit(context.key, body.file, {
    size: body.size,
    etag,
    lastModified: context.now().toISOString(),
    crc32: body.crc32,
    headers: storedHeaders(context.req),
  });
  sendEmpty(context.res, 200, {
    etag,
    ...(body.checksum && { [checksumHeaderName(body.checksum.algorithm)]: body.checksum.value, "x-amz-checksum-type": "FULL_OBJECT" }),
  });
}

/** GetObject and HeadObject, with Range, conditional headers, `response-*` overrides and full-object checksums. */
export async function getObject(context: S3Context): Promise<void> {
  const { req, res } = context;
  const object = await context.disk.open(context.key);
  if (object === undefined) throw new S3Error("NoSuchKey", "The specified key does not exist.", { Key: context.key });
  try {
    const metadata = object.metadata;
    const precondition = evaluatePreconditions(req.headers, metadata);
    if (precondition === "not-modified") {
      await object.close();
      sendEmpty(res, 304, { etag: metadata.etag, "last-modified": new Date(metadata.lastModified).toUTCString() });
      return;
    }
    const range = parseRange(req.headers.range, metadata.size);
    const headers: Record<string, string> = {
      ...metadata.headers,
      "content-type": metadata.headers["content-type"] ?? "binary/octet-stream",
      ...overrides(context),
      etag: metadata.etag,
      "last-modified": new Date(metadata.lastModified).toUTCString(),
      "accept-ranges": "bytes",
      "content-length": String(range === undefined ? metadata.size : range.end - range.start + 1),
      ...(range === undefined ? fullObjectChecksum(context, metadata) : { "content-range": `bytes ${range.start}-${range.end}/${metadata.size}` }),
    };
    res.writeHead(range === undefined ? 200 : 206, headers);
    if (req.method === "HEAD" || metadata.size === 0) {
      await object.close();
      res.end();
      return;
    }
    await pipeline(object.read(range), res);
  } catch (error) {
    await object.close();
    throw error;
  }
}

/** DeleteObject: 204 whether or not the object existed. */
export async function deleteObject(context: S3Context): Promise<void> {
  await context.disk.remove(context.key);
  sendEmpty(context.res, 204);
}

/** The `response-content-type` (and similar) query parameters of signed GETs, as response headers. */
function overrides(context: S3Context): Record<string, string> {
  const names = ["content-type", "content-disposition", "content-encoding", "content-language", "cache-control", "expires"];
  const headers: Record<string, string> = {};
  for (const [name, value] of context.target.query) {
    const header = name.toLowerCase().replace(/^response-/, "");
    if (name.toLowerCase().startsWith("response-") && names.includes(header)) headers[header] = value;
  }
  return headers;
}

/** The object's CRC-32, when the client asks for checksums (`x-amz-checksum-mode: ENABLED`) and gets the whole object. */
function fullObjectChecksum(context: S3Context, metadata: ObjectMetadata): Record<string, string> {
  const mode = context.req.headers["x-amz-checksum-mode"];
  if (typeof mode !== "string" || mode.toUpperCase() !== "ENABLED") return {};
  return { "x-amz-checksum-crc32": metadata.crc32, "x-amz-checksum-type": "FULL_OBJECT" };
}
