import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { PassThrough, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { AuthenticatedRequest } from "./authenticate-request";
import { createAwsChunkedDecoder, type AwsChunkedDecoder } from "./aws-chunked-decoder";
import { CHECKSUM_ALGORITHMS, checksumHeaderName, parseChecksumAlgorithm, type ChecksumAlgorithm } from "./checksum";
import { createDigestStream, type Digests } from "./digest-stream";
import { S3Error } from "./s3-error";

/** A request body written to a temporary file and verified against everything the client declared. */
export interface ReceivedBody extends Digests {
  file: string;
  /** The client's flexible checksum (header or trailer), verified. */
  checksum: { algorithm: ChecksumAlgorithm; value: string } | undefined;
}

/**
 * Streams a request body to `file` (never held in memory), decoding `aws-chunked` bodies and verifying
 * the declared payload SHA-256, chunk and trailer signatures, `Content-MD5`, the `x-amz-checksum-*`
 * header or trailer, and the decoded length. On any failure the file is removed and the error thrown.
 */
export async function receiveBody(
  req: IncomingMessage,
  auth: AuthenticatedRequest,
  options: { file: string; maxSize: number },
): Promise<ReceivedBody> {
  const payloadHash = auth.payloadHash;
  if (payloadHash.startsWith("STREAMING-AWS4-ECDSA")) {
    throw new S3Error("NotImplemented", "SigV4A (ECDSA) streaming signatures are not supported.");
  }
  const chunked = payloadHash.startsWith("STREAMING-") || header(req, "content-encoding")?.includes("aws-chunked") === true;
  const algorithm = declaredAlgorithm(req);
  const contentMd5 = declaredMd5(req);
  const decoder = chunked
    ? createAwsChunkedDecoder(payloadHash.startsWith("STREAMING-AWS4-HMAC-SHA256-PAYLOAD") ? { signing: auth.signing } : {})
    : undefined;
  const digest = createDigestStream({ maxSize: options.maxSize, ...(algorithm && { algorithm }) });
  // The request is piped rather than put in the pipeline: a failing pipeline destroys its source, and a
  // destroyed request resets the connection before the client reads the error.
  const source = new PassThrough();
  const onAbort = (): void => {
    if (!req.complete) source.destroy(new S3Error("IncompleteBody", "The request body ended early."));
  };
  const stages: Array<NodeJS.ReadableStream | NodeJS.WritableStream> = [source];
  if (/^[0-9a-f]{64}$/i.test(payloadHash)) stages.push(sha256Verifier(payloadHash.toLowerCase()));
  if (decoder) stages.push(decoder);
  req.on("close", onAbort).on("error", onAbort).pipe(source);
  try {
    await pipeline([...stages, digest, createWriteStream(options.file, { flags: "wx", flush: true })]);
    const digests = digest.digests();
    checkLength(req, chunked, digests.size);
    if (contentMd5 !== undefined && !contentMd5.equals(digests.md5)) {
      throw new S3Error("BadDigest", "The Content-MD5 you specified did not match what we received.");
    }
    const checksum = algorithm === undefined ? undefined : verifyChecksum(req, decoder, algorithm, digests.extra!);
    return { ...digests, file: options.file, checksum };
  } catch (error) {
    await rm(options.file, { force: true });
    throw error;
  } finally {
    req.off("close", onAbort).off("error", onAbort).unpipe(source);
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/** The checksum algorithm a client declared, by name or by the header or trailer it sends. */
function declaredAlgorithm(req: IncomingMessage): ChecksumAlgorithm | undefined {
  const named = header(req, "x-amz-sdk-checksum-algorithm");
  if (named !== undefined) return parseChecksumAlgorithm(named);
  const trailer = header(req, "x-amz-trailer")?.trim().toLowerCase();
  return CHECKSUM_ALGORITHMS.find(
    (algorithm) => header(req, checksumHeaderName(algorithm)) !== undefined || trailer === checksumHeaderName(algorithm),
  );
}

function declaredMd5(req: IncomingMessage): Buffer | undefined {
  const value = header(req, "content-md5");
  if (value === undefined) return undefined;
  const bytes = Buffer.from(value.trim(), "base64");
  if (bytes.length !== 16 || bytes.toString("base64") !== value.trim()) {
    throw new S3Error("InvalidDigest", "The Content-MD5 you specified is not valid.");
  }
  return bytes;
}

function checkLength(req: IncomingMessage, chunked: boolean, size: number): void {
  const declared = chunked ? header(req, "x-amz-decoded-content-length") : undefined;
  if (declared !== undefined && Number(declared) !== size) {
    throw new S3Error("IncompleteBody", "You did not provide the number of bytes specified by the x-amz-decoded-content-length header.");
  }
}

function verifyChecksum(
  req: IncomingMessage,
  decoder: AwsChunkedDecoder | undefined,
  algorithm: ChecksumAlgorithm,
  actual: string,
): { algorithm: ChecksumAlgorithm; value: string } | undefined {
  const name = checksumHeaderName(algorithm);
  const expected = header(req, name) ?? decoder?.trailers.get(name);
  if (expected === undefined) {
    // Naming an algorithm without sending its value is allowed only when the value was promised as a trailer.
    if (header(req, "x-amz-trailer") !== undefined) {
      throw new S3Error("InvalidRequest", `The trailer ${name} was declared but not sent.`);
    }
    return undefined;
  }
  if (expected.trim() !== actual) {
    throw new S3Error("BadDigest", `The ${algorithm} you specified did not match the calculated checksum.`);
  }
  return { algorithm, value: actual };
}

function sha256Verifier(expected: string): Transform {
  const hash = createHash("sha256");
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      const actual = hash.digest("hex");
      callback(
        actual === expected
          ? null
          : new S3Error("XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.", {
              ClientComputedContentSHA256: expected,
              S3ComputedContentSHA256: actual,
            }),
      );
    },
  });
}
