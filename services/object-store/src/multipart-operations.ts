import { CHECKSUM_ALGORITHMS, checksumHeaderName, parseChecksumAlgorithm, type ChecksumAlgorithm } from "./checksum";
import type { CompletedPart } from "./multipart-store";
import { MAX_UPLOAD_SIZE } from "./object-operations";
import { queryParam } from "./request-target";
import { S3Error } from "./s3-error";
import { storedHeaders, type S3Context } from "./s3-operation";
import { sendEmpty, sendXml } from "./s3-response";
import { xmlDocument, xmlElements, xmlText, type XmlElement } from "./xml";

/** The largest CompleteMultipartUpload document read: 10,000 parts with checksums fit well below it. */
const MAX_COMPLETE_BODY = 4 * 1024 * 1024;

/** CreateMultipartUpload (`POST /bucket/key?uploads`). */
export async function createMultipartUpload(context: S3Context): Promise<void> {
  const named = context.req.headers["x-amz-checksum-algorithm"];
  const checksumAlgorithm = typeof named === "string" ? parseChecksumAlgorithm(named) : undefined;
  const upload = await context.multipart.create(context.key, { headers: storedHeaders(context.req), checksumAlgorithm });
  sendXml(
    context.res,
    200,
    xmlDocument("InitiateMultipartUploadResult", [
      ["Bucket", context.bucket],
      ["Key", context.key],
      ["UploadId", upload.uploadId],
    ]),
    checksumAlgorithm === undefined ? {} : { "x-amz-checksum-algorithm": checksumAlgorithm },
  );
}

/** UploadPart (`PUT /bucket/key?partNumber=n&uploadId=id`): the part is streamed to disk like an object. */
export async function uploadPart(context: S3Context): Promise<void> {
  const partNumber = parsePartNumber(queryParam(context.target, "partNumber"));
  const upload = await context.multipart.get(uploadIdOf(context), context.key);
  const part = await context.multipart.putPart(upload, partNumber, await context.receiveBody(MAX_UPLOAD_SIZE));
  sendEmpty(context.res, 200, {
    etag: part.etag,
    ...(part.checksum && { [checksumHeaderName(part.checksum.algorithm)]: part.checksum.value }),
  });
}

/** CompleteMultipartUpload (`POST /bucket/key?uploadId=id`). */
export async function completeMultipartUpload(context: S3Context): Promise<void> {
  const upload = await context.multipart.get(uploadIdOf(context), context.key);
  const parts = parseCompletion(await context.readText(MAX_COMPLETE_BODY));
  const metadata = await context.multipart.complete(upload, parts);
  const host = context.req.headers.host ?? "localhost";
  sendXml(
    context.res,
    200,
    xmlDocument("CompleteMultipartUploadResult", [
      ["Location", `http://${host}/${context.bucket}/${encodeURI(context.key)}`],
      ["Bucket", context.bucket],
      ["Key", context.key],
      ["ETag", metadata.etag],
    ]),
  );
}

/** AbortMultipartUpload (`DELETE /bucket/key?uploadId=id`). */
export async function abortMultipartUpload(context: S3Context): Promise<void> {
  await context.multipart.abort(await context.multipart.get(uploadIdOf(context), context.key));
  sendEmpty(context.res, 204);
}

/** ListParts (`GET /bucket/key?uploadId=id`), with `max-parts` and `part-number-marker`. */
export async function listParts(context: S3Context): Promise<void> {
  const upload = await context.multipart.get(uploadIdOf(context), context.key);
  const marker = Number(queryParam(context.target, "part-number-marker") ?? "0");
  const maxParts = Math.min(Number(queryParam(context.target, "max-parts") ?? "1000"), 1000);
  if (!Number.isInteger(marker) || marker < 0 || !Number.isInteger(maxParts) || maxParts < 0) {
    throw new S3Error("InvalidArgument", "part-number-marker and max-parts must be non-negative integers.");
  }
  const after = (await context.multipart.listParts(upload)).filter((part) => part.partNumber > marker);
  const page = after.slice(0, maxParts);
  const truncated = after.length > page.length;
  sendXml(
    context.res,
    200,
    xmlDocument("ListPartsResult", [
      ["Bucket", context.bucket],
      ["Key", context.key],
      ["UploadId", upload.uploadId],
      ["PartNumberMarker", marker],
      ["NextPartNumberMarker", page.at(-1)?.partNumber ?? marker],
      ["MaxParts", maxParts],
      ["IsTruncated", truncated],
      ["StorageClass", "STANDARD"],
      ...(upload.checksumAlgorithm ? [["ChecksumAlgorithm", upload.checksumAlgorithm] as const] : []),
      ...page.map((part): XmlElement => [
        "Part",
        [
          ["PartNumber", part.partNumber],
          ["LastModified", part.lastModified],
          ["ETag", part.etag],
          ["Size", part.size],
          ...(part.checksum ? [[`Checksum${part.checksum.algorithm}`, part.checksum.value] as const] : []),
        ],
      ]),
    ]),
  );
}

function uploadIdOf(context: S3Context): string {
  return queryParam(context.target, "uploadId") ?? "";
}

function parsePartNumber(value: string | undefined): number {
  const number = value !== undefined && /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(number >= 1 && number <= 10_000)) {
    throw new S3Error("InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive.", {
      ArgumentName: "partNumber",
      ArgumentValue: value ?? "",
    });
  }
  return number;
}

/** The parts of a `<CompleteMultipartUpload>` document, with any checksums the client recorded. */
function parseCompletion(xml: string): CompletedPart[] {
  if (xmlElements(xml, "CompleteMultipartUpload").length !== 1) {
    throw new S3Error("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema.");
  }
  return xmlElements(xml, "Part").map((part) => {
    const partNumber = Number(xmlText(part, "PartNumber")?.trim());
    const etag = xmlText(part, "ETag")?.trim();
    if (!Number.isInteger(partNumber) || etag === undefined) {
      throw new S3Error("MalformedXML", "Every Part needs a PartNumber and an ETag.");
    }
    const checksums: Partial<Record<ChecksumAlgorithm, string>> = {};
    for (const algorithm of CHECKSUM_ALGORITHMS) {
      const value = xmlText(part, `Checksum${algorithm}`)?.trim();
      if (value !== undefined) checksums[algorithm] = value;
    }
    return { partNumber, etag, checksums };
  });
}
