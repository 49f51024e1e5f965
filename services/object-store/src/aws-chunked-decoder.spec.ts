import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { pipeline } from "node:stream/promises";
import { crc32 } from "node:zlib";
import { createAwsChunkedDecoder, type AwsChunkedDecoderOptions } from "./aws-chunked-decoder";
import { documentedSigningKey, hmacHex } from "./embedded-store.fixture";
import { EMPTY_SHA256, sha256Hex } from "./sigv4";

// The chunked-upload example of the AWS S3 documentation ("Signature Calculations for the Authorization
// Header: Transferring Payload in Multiple Chunks"): 65 KiB of 'a' in a 64 KiB and a 1 KiB chunk.
const signing = {
  key: documentedSigningKey("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "20130524"),
  amzDate: "20130524T000000Z",
  scope: "20130524/us-east-1/s3/aws4_request",
  seedSignature: "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9",
};
const documentedBody = Buffer.concat([
  Buffer.from("10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n"),
  Buffer.alloc(65536, "a"),
  Buffer.from("\r\n400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n"),
  Buffer.alloc(1024, "a"),
  Buffer.from("\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n"),
]);

/** Feeds `body` in pieces of `pieceSize` bytes (so that lines and CRLFs are split) and collects the output. */
async function decode(body: Buffer, options: AwsChunkedDecoderOptions = {}, pieceSize = 7) {
  const pieces: Buffer[] = [];
  for (let i = 0; i < body.length; i += pieceSize) pieces.push(body.subarray(i, i + pieceSize));
  const decoder = createAwsChunkedDecoder(options);
  const [, payload] = await Promise.all([pipeline(Readable.from(pieces), decoder), buffer(decoder)]);
  return { payload, trailers: decoder.trailers };
}

test("the documented signed example decodes to its 66560 bytes, every chunk signature verified", async () => {
  for (const pieceSize of [1, 7, 8192, documentedBody.length]) {
    const { payload } = await decode(documentedBody, { signing }, pieceSize);
    expect(payload.equals(Buffer.alloc(66560, "a"))).toBe(true);
  }
});

test("a tampered chunk of the signed example fails with SignatureDoesNotMatch", async () => {
  const tampered = Buffer.from(documentedBody);
  tampered[200] = "b".charCodeAt(0);
  await expect(decode(tampered, { signing }, 4096)).rejects.toMatchObject({ code: "SignatureDoesNotMatch" });
});

test("a chunk without its signature fails when the body must be signed", async () => {
  await expect(decode(Buffer.from("3\r\nabc\r\n0\r\n\r\n"), { signing })).rejects.toMatchObject({ code: "SignatureDoesNotMatch" });
});

test("an unsigned body with a checksum trailer (as boto3 and the JavaScript SDK send it) yields payload and trailer", async () => {
  const payload = Buffer.from("hello, hangar");
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(payload));
  const body = Buffer.from(`d\r\n${payload}\r\n0\r\nx-amz-checksum-crc32:${checksum.toString("base64")}\r\n\r\n`);
  const decoded = await decode(body);
  expect(decoded.payload.toString()).toBe("hello, hangar");
  expect([...decoded.trailers]).toEqual([["x-amz-checksum-crc32", checksum.toString("base64")]]);
});

test("a body that ends right after the last chunk (the JavaScript SDK without a checksum) is complete", async () => {
  expect((await decode(Buffer.from("3\r\nabc\r\n0\r\n"))).payload.toString()).toBe("abc");
});

test("a signed trailer is verified against the chain of chunk signatures", async () => {
  const chunkSignature = (previous: string, data: string): string =>
    hmacHex(signing.key, ["AWS4-HMAC-SHA256-PAYLOAD", signing.amzDate, signing.scope, previous, EMPTY_SHA256, sha256Hex(data)].join("\n"));
  const first = chunkSignature(signing.seedSignature, "abc");
  const last = chunkSignature(first, "");
  const trailer = "x-amz-checksum-crc32:NSRBwg==";
  const trailerSignature = hmacHex(signing.key, ["AWS4-HMAC-SHA256-TRAILER", signing.amzDate, signing.scope, last, sha256Hex(`${trailer}\n`)].join("\n"));
  const body = (signature: string): Buffer =>
    Buffer.from(`3;chunk-signature=${first}\r\nabc\r\n0;chunk-signature=${last}\r\n${trailer}\r\nx-amz-trailer-signature:${signature}\r\n\r\n`);
  expect((await decode(body(trailerSignature), { signing })).trailers.get("x-amz-checksum-crc32")).toBe("NSRBwg==");
  await expect(decode(body("0".repeat(64)), { signing })).rejects.toMatchObject({ code: "SignatureDoesNotMatch" });
});

test("a truncated body fails with IncompleteBody", async () => {
  await expect(decode(Buffer.from("a\r\nabc"))).rejects.toMatchObject({ code: "IncompleteBody" });
});

test("data longer than its chunk size, or a bad size line, is malformed", async () => {
  await expect(decode(Buffer.from("2\r\nabc\r\n0\r\n\r\n"))).rejects.toMatchObject({ code: "InvalidRequest" });
  await expect(decode(Buffer.from("zz\r\nabc\r\n0\r\n\r\n"))).rejects.toMatchObject({ code: "InvalidRequest" });
});
