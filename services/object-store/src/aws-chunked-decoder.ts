import { createHash, type Hash } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";
import { S3Error } from "./s3-error";
import { EMPTY_SHA256, hmacSha256Hex, sha256Hex, signaturesEqual } from "./sigv4";

/**
 * What verifies chunk signatures: the request's signing key (derived by the AWS SDK's signer library),
 * timestamp, scope and seed signature. Each chunk is checked with one synchronous HMAC in the decoder.
 */
export interface ChunkSigning {
  key: Uint8Array;
  amzDate: string;
  scope: string;
  seedSignature: string;
}

/** Options of {@link createAwsChunkedDecoder}. */
export interface AwsChunkedDecoderOptions {
  /** Given for `STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER]`: every chunk (and the trailer) must be signed. */
  signing?: ChunkSigning;
}

/** Decodes an `aws-chunked` body; `trailers` holds its trailing headers (such as `x-amz-checksum-crc32`) once done. */
export interface AwsChunkedDecoder extends Transform {
  readonly trailers: ReadonlyMap<string, string>;
}

const MAX_LINE = 4096;
const MAX_TRAILERS = 16;
const MAX_CHUNK = 5 * 1024 ** 3;
const CRLF = Buffer.from("\r\n");

/**
 * A transform from the `aws-chunked` encoding (`<hex size>[;chunk-signature=<sig>]\r\n<data>\r\n` ... `0...\r\n`,
 * then optional trailer lines and an empty line) to the payload, verifying each chunk's signature in its chain
 * when signed. A body may end without the final empty line: the JavaScript SDK sends none when it has no trailer.
 */
export function createAwsChunkedDecoder(options: AwsChunkedDecoderOptions = {}): AwsChunkedDecoder {
  const { signing } = options;
  const trailers = new Map<string, string>();
  const trailerLines: string[] = [];
  let state: "size" | "data" | "data-end" | "trailer" | "done" = "size";
  let line = Buffer.alloc(0);
  let remaining = 0;
  let previousSignature = signing?.seedSignature ?? "";
  let chunkSignature = "";
  let chunkHash: Hash | undefined;

  const verifyChunk = (hash: string): void => {
    if (!signing) return;
    const stringToSign = ["AWS4-HMAC-SHA256-PAYLOAD", signing.amzDate, signing.scope, previousSignature, EMPTY_SHA256, hash].join("\n");
    const expected = hmacSha256Hex(signing.key, stringToSign);
    if (!signaturesEqual(expected, chunkSignature)) throw chunkSignatureMismatch();
    previousSignature = expected;
  };

  const onSizeLine = (text: string): void => {
    const [sizeText = "", ...extensions] = text.split(";");
    if (!/^[0-9a-fA-F]{1,16}$/.test(sizeText.trim())) throw malformed(`bad chunk size line '${text.slice(0, 80)}'`);
    remaining = parseInt(sizeText.trim(), 16);
    if (remaining > MAX_CHUNK) throw malformed("chunk too large");
    const signature = extensions.map((part) => part.trim()).find((part) => part.startsWith("chunk-signature="));
    chunkSignature = signature?.slice("chunk-signature=".length) ?? "";
    if (signing && chunkSignature === "") throw chunkSignatureMismatch();
    if (remaining === 0) {
      verifyChunk(EMPTY_SHA256);
      state = "trailer";
    } else {
      chunkHash = signing ? createHash("sha256") : undefined;
      state = "data";
    }
  };

  const onTrailerLine = (text: string): void => {
    if (text !== "") {
      const colon = text.indexOf(":");
      if (colon <= 0) throw malformed(`bad trailer line '${text.slice(0, 80)}'`);
      const name = text.slice(0, colon).trim().toLowerCase();
      const value = text.slice(colon + 1).trim();
      if (name === "x-amz-trailer-signature") {
        chunkSignature = value;
      } else {
        if (trailers.size === MAX_TRAILERS) throw malformed("too many trailers");
        trailers.set(name, value);
        trailerLines.push(`${name}:${value}\n`);
      }
      return;
    }
    if (signing && trailers.size > 0) {
      const stringToSign = ["AWS4-HMAC-SHA256-TRAILER", signing.amzDate, signing.scope, previousSignature, sha256Hex(trailerLines.join(""))].join("\n");
      if (!signaturesEqual(hmacSha256Hex(signing.key, stringToSign), chunkSignature)) throw chunkSignatureMismatch();
    }
    state = "done";
  };

  /** Consumes bytes of a CRLF-terminated line; returns the offset after it, or -1 when the line is incomplete. */
  const takeLine = (data: Buffer, offset: number, onLine: (text: string) => void): number => {
    const end = data.indexOf(CRLF, offset);
    // A CR at the end of the previous piece and an LF at the start of this one also end the line.
    if (line.length > 0 && line[line.length - 1] === 0x0d && data[offset] === 0x0a) {
      const text = line.subarray(0, line.length - 1).toString("latin1");
      line = Buffer.alloc(0);
      onLine(text);
      return offset + 1;
    }
    if (end < 0) {
      line = Buffer.concat([line, data.subarray(offset)]);
      if (line.length > MAX_LINE) throw malformed("chunk header line too long");
      return -1;
    }
    const text = Buffer.concat([line, data.subarray(offset, end)]).toString("latin1");
    line = Buffer.alloc(0);
    onLine(text);
    return end + 2;
  };

  const decode = function (this: Transform, data: Buffer): void {
    let offset = 0;
    while (offset < data.length) {
      if (state === "size" || state === "trailer") {
        const next = takeLine(data, offset, state === "size" ? onSizeLine : onTrailerLine);
        if (next < 0) return;
        offset = next;
      } else if (state === "data") {
        const piece = data.subarray(offset, offset + remaining);
        chunkHash?.update(piece);
        this.push(piece);
        remaining -= piece.length;
        offset += piece.length;
        if (remaining === 0) state = "data-end";
      } else if (state === "data-end") {
        const next = takeLine(data, offset, (text) => {
          if (text !== "") throw malformed("chunk data longer than its size");
        });
        if (next < 0) return;
        verifyChunk(chunkHash?.digest("hex") ?? "");
        offset = next;
        state = "size";
      } else {
        throw malformed("bytes after the final chunk");
      }
    }
  };

  const decoder = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      try {
        decode.call(this, chunk);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback: TransformCallback) {
      try {
        if (state === "trailer" && line.length === 0) onTrailerLine("");
        callback(state === "done" ? null : new S3Error("IncompleteBody", "The request body ended before its last chunk."));
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  return Object.assign(decoder, { trailers });
}

function malformed(detail: string): S3Error {
  return new S3Error("InvalidRequest", `The aws-chunked body is malformed: ${detail}.`);
}

function chunkSignatureMismatch(): S3Error {
  return new S3Error("SignatureDoesNotMatch", "The chunk signature we calculated does not match the signature you provided.");
}
