import type { ObjectMetadata } from "./disk-store";
import { compareKeys } from "./object-key";
import { queryParam } from "./request-target";
import { S3Error } from "./s3-error";
import type { S3Context } from "./s3-operation";
import { sendXml } from "./s3-response";
import { xmlDocument, type XmlElement } from "./xml";

/** The parameters of a listing, V1 (`marker`) or V2 (`list-type=2`, `continuation-token`, `start-after`). */
export interface ListRequest {
  version: 1 | 2;
  prefix: string;
  delimiter: string | undefined;
  maxKeys: number;
  /** Keys at or before this are left out (V2 `start-after`, V1 `marker`). */
  startAfter: string | undefined;
  /** V2: the last key or common prefix of the previous page; entries at or before it are left out. */
  continuation: string | undefined;
  encodeKeys: boolean;
}

/** Reads and validates the listing parameters; the prefix is what access is checked against. */
export function parseListRequest(context: Pick<S3Context, "target">): ListRequest {
  const param = (name: string): string | undefined => queryParam(context.target, name);
  const version = param("list-type") === "2" ? 2 : 1;
  const maxKeysText = param("max-keys") ?? "1000";
  if (!/^\d{1,9}$/.test(maxKeysText)) throw new S3Error("InvalidArgument", "max-keys must be a non-negative integer.");
  const encoding = param("encoding-type");
  if (encoding !== undefined && encoding !== "url") throw new S3Error("InvalidArgument", "Invalid Encoding Method specified in Request.");
  const token = version === 2 ? param("continuation-token") : undefined;
  return {
    version,
    prefix: param("prefix") ?? "",
    delimiter: param("delimiter") || undefined,
    maxKeys: Math.min(Number(maxKeysText), 1000),
    startAfter: version === 2 ? param("start-after") : param("marker"),
    continuation: token === undefined ? undefined : decodeToken(token),
    encodeKeys: encoding === "url",
  };
}

/** ListObjectsV2 and ListObjects: keys in UTF-8 order, rolled up into common prefixes by the delimiter. */
export async function listObjects(context: S3Context, request: ListRequest): Promise<void> {
  const contents: Array<{ key: string; metadata: ObjectMetadata }> = [];
  const prefixes: string[] = [];
  let last: string | undefined;
  let truncated = false;
  for await (const entry of request.maxKeys === 0 ? [] : entries(context, request)) {
    if (contents.length + prefixes.length === request.maxKeys) {
      truncated = true;
      break;
    }
    if (entry.kind === "prefix") prefixes.push(entry.prefix);
    else contents.push({ key: entry.key, metadata: entry.metadata });
    last = entry.kind === "prefix" ? entry.prefix : entry.key;
  }
  const encode = (text: string | undefined): string | undefined =>
    text === undefined || !request.encodeKeys ? text : encodeURIComponent(text).replace(/%2F/g, "/");
  const common: XmlElement[] = [
    ["Name", context.bucket],
    ["Prefix", encode(request.prefix)],
    ["Delimiter", encode(request.delimiter)],
    ["MaxKeys", request.maxKeys],
    ["IsTruncated", truncated],
    ["EncodingType", request.encodeKeys ? "url" : undefined],
  ];
  const versioned: XmlElement[] =
    request.version === 2
      ? [
          ["KeyCount", contents.length + prefixes.length],
          ["ContinuationToken", queryParam(context.target, "continuation-token")],
          ["NextContinuationToken", truncated && last !== undefined ? encodeToken(last) : undefined],
          ["StartAfter", encode(request.startAfter)],
        ]
      : [
          ["Marker", encode(request.startAfter ?? "")],
          ["NextMarker", truncated ? encode(last) : undefined],
        ];
  const items: XmlElement[] = [
    ...contents.map(({ key, metadata }): XmlElement => [
      "Contents",
      [
        ["Key", encode(key)],
        ["LastModified", new Date(metadata.lastModified).toISOString()],
        ["ETag", metadata.etag],
        ["Size", metadata.size],
        ["StorageClass", "STANDARD"],
      ],
    ]),
    ...prefixes.map((prefix): XmlElement => ["CommonPrefixes", [["Prefix", encode(prefix)]]]),
  ];
  sendXml(context.res, 200, xmlDocument("ListBucketResult", [...common, ...versioned, ...items]));
}

type Entry = { kind: "object"; key: string; metadata: ObjectMetadata } | { kind: "prefix"; prefix: string };

async function* entries(context: S3Context, request: ListRequest): AsyncGenerator<Entry> {
  const { prefix, delimiter, startAfter, continuation } = request;
  // Nothing at or before the later of the two bounds can be listed: the walk may skip it.
  const after = [startAfter, continuation].filter((bound): bound is string => bound !== undefined).sort(compareKeys).at(-1);
  let previousPrefix: string | undefined;
  for await (const entry of context.disk.list({ prefix, ...(delimiter && { delimiter }), ...(after !== undefined && { after }) })) {
    let item: Entry | undefined;
    if (entry.kind === "prefix") {
      item = entry;
    } else {
      if (startAfter !== undefined && compareKeys(entry.key, startAfter) <= 0) continue;
      const rest = entry.key.slice(prefix.length);
      const at = delimiter === undefined ? -1 : rest.indexOf(delimiter);
      if (at >= 0) item = { kind: "prefix", prefix: prefix + rest.slice(0, at + delimiter!.length) };
      else {
        const metadata = await context.disk.stat(entry.key);
        // Deleted since the folder was read.
        if (metadata !== undefined) item = { kind: "object", key: entry.key, metadata };
      }
    }
    if (item === undefined) continue;
    const name = item.kind === "prefix" ? item.prefix : item.key;
    if (continuation !== undefined && compareKeys(name, continuation) <= 0) continue;
    if (item.kind === "prefix" && item.prefix === previousPrefix) continue;
    if (item.kind === "prefix") previousPrefix = item.prefix;
    yield item;
  }
}

function encodeToken(name: string): string {
  return Buffer.from(name, "utf8").toString("base64url");
}

function decodeToken(token: string): string {
  const name = Buffer.from(token, "base64url").toString("utf8");
  if (token === "" || encodeToken(name) !== token) {
    throw new S3Error("InvalidArgument", "The continuation token provided is incorrect.", { ArgumentName: "continuation-token" });
  }
  return name;
}
