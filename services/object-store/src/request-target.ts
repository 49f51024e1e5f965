import { S3Error } from "./s3-error";

/** What a request addresses, path-style: `/bucket/key?query`. */
export interface RequestTarget {
  /** The path exactly as received (still percent-encoded): what clients sign. */
  rawPath: string;
  /** Undefined for the service root `/`. */
  bucket: string | undefined;
  /** Percent-decoded once; undefined for bucket-level requests. */
  key: string | undefined;
  /** Decoded query pairs in their order. */
  query: ReadonlyArray<readonly [string, string]>;
}

/** Splits a request URL (origin-form, or absolute-form from proxies) into bucket, key and query. */
export function parseRequestTarget(url: string): RequestTarget {
  const withoutOrigin = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?]*/i, "");
  const queryAt = withoutOrigin.indexOf("?");
  const rawPath = (queryAt < 0 ? withoutOrigin : withoutOrigin.slice(0, queryAt)) || "/";
  const rawQuery = queryAt < 0 ? "" : withoutOrigin.slice(queryAt + 1);
  if (!rawPath.startsWith("/")) throw new S3Error("InvalidURI", "Couldn't parse the specified URI.");
  const slash = rawPath.indexOf("/", 1);
  const rawBucket = slash < 0 ? rawPath.slice(1) : rawPath.slice(1, slash);
  const rawKey = slash < 0 ? "" : rawPath.slice(slash + 1);
  return {
    rawPath,
    bucket: rawBucket === "" ? undefined : decode(rawBucket),
    key: rawKey === "" ? undefined : decode(rawKey),
    query: parseQuery(rawQuery),
  };
}

/** Parses a raw query string; `+` stays a plus sign, as SigV4 signs it. */
export function parseQuery(rawQuery: string): Array<readonly [string, string]> {
  if (rawQuery === "") return [];
  return rawQuery
    .split("&")
    .filter((part) => part !== "")
    .map((part) => {
      const equals = part.indexOf("=");
      return equals < 0 ? [decode(part), ""] : [decode(part.slice(0, equals)), decode(part.slice(equals + 1))];
    });
}

/** The first value of a query parameter. */
export function queryParam(target: RequestTarget, name: string): string | undefined {
  return target.query.find(([n]) => n === name)?.[1];
}

/** Whether a query parameter is present (with or without a value), as in `?uploads`. */
export function hasQueryParam(target: RequestTarget, name: string): boolean {
  return target.query.some(([n]) => n === name);
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new S3Error("InvalidURI", "Couldn't parse the specified URI.");
  }
}
