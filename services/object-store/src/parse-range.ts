import { S3Error } from "./s3-error";

/**
 * The byte range of a `Range` header (`bytes=a-b`, `bytes=a-`, `bytes=-n`) over an object of `size` bytes,
 * clipped to the object; undefined for no header or one S3 ignores (several ranges, other units, bad syntax).
 * A range that starts past the end is 416 InvalidRange.
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | undefined {
  const match = header === undefined ? null : /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (match === null) return undefined;
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return undefined;
  let start: number;
  let end: number;
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0) throw unsatisfiable(size);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
    if (last !== "" && Number(last) < start) return undefined;
  }
  if (start >= size) throw unsatisfiable(size);
  return { start, end };
}

function unsatisfiable(size: number): S3Error {
  return new S3Error("InvalidRange", "The requested range is not satisfiable.", { ActualObjectSize: String(size) }, { "content-range": `bytes */${size}` });
}
