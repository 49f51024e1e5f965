import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, UploadPartCommand, CreateMultipartUploadCommand } from "@aws-sdk/client-s3";
import { randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";
import type { ScopedCredentials } from "./scoped-credentials";
import { hmacHex, listFiles, sendSigned, startTestStore, type TestStore } from "./embedded-store.fixture";
import type { ChunkSigning } from "./aws-chunked-decoder";
import { EMPTY_SHA256, sha256Hex } from "./sigv4";

const Bucket = "hangar";
const prefix = "datasets/d2/";
let test_: TestStore;
let readWrite: ScopedCredentials;
let readOnly: ScopedCredentials;

beforeAll(async () => {
  test_ = await startTestStore();
  readWrite = await test_.store.issueCredentials({ prefix, mode: "ReadWrite", ttlSeconds: 3600 });
  readOnly = await test_.store.issueCredentials({ prefix, mode: "ReadOnly", ttlSeconds: 3600 });
  await test_.client(readWrite).send(new PutObjectCommand({ Bucket, Key: `${prefix}existing.txt`, Body: "existing" }));
});
afterAll(() => test_.stop());
afterEach(() => {
  test_.clock.offsetMs = 0;
});

/** Runs a refused request and checks its S3 error, and that nothing on disk changed. */
async function expectRefusal(send: () => Promise<unknown>, code: string, status: number): Promise<void> {
  const before = await listFiles(test_.dataDir);
  await expect(send()).rejects.toMatchObject({ name: code, $metadata: { httpStatusCode: status } });
  expect(await listFiles(test_.dataDir)).toEqual(before);
}

const put = (client: S3Client, Key: string) => () => client.send(new PutObjectCommand({ Bucket, Key, Body: randomBytes(2048) }));

test("a write outside the credential's prefix is 403 AccessDenied", async () => {
  await expectRefusal(put(test_.client(readWrite), "datasets/other/x.bin"), "AccessDenied", 403);
  await expectRefusal(put(test_.client(readWrite), "datasets/d2"), "AccessDenied", 403);
});

test("a multipart upload outside the prefix is refused before it starts", async () => {
  const client = test_.client(readWrite);
  await expectRefusal(() => client.send(new CreateMultipartUploadCommand({ Bucket, Key: "datasets/other/big.bin" })), "AccessDenied", 403);
});

test("ReadOnly credentials may read and list under their prefix but not write", async () => {
  const client = test_.client(readOnly);
  const got = await client.send(new GetObjectCommand({ Bucket, Key: `${prefix}existing.txt` }));
  expect(await got.Body!.transformToString()).toBe("existing");
  expect((await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix }))).KeyCount).toBe(1);
  await expectRefusal(put(client, `${prefix}new.bin`), "AccessDenied", 403);
});

test("reads and listings outside the prefix are 403 AccessDenied", async () => {
  const client = test_.client(readOnly);
  await expectRefusal(() => client.send(new GetObjectCommand({ Bucket, Key: "datasets/other/x" })), "AccessDenied", 403);
  await expectRefusal(() => client.send(new ListObjectsV2Command({ Bucket, Prefix: "datasets/" })), "AccessDenied", 403);
  await expectRefusal(() => client.send(new ListObjectsV2Command({ Bucket })), "AccessDenied", 403);
});

test("a wrong secret is 403 SignatureDoesNotMatch", async () => {
  // Change the last character to a different one, whatever it is.
  const last = readWrite.secretAccessKey.slice(-1);
  const client = test_.client({ ...readWrite, secretAccessKey: `${readWrite.secretAccessKey.slice(0, -1)}${last === "x" ? "y" : "x"}` });
  await expectRefusal(put(client, `${prefix}x.bin`), "SignatureDoesNotMatch", 403);
});

test("a large refused upload (sent with Expect: 100-continue) is answered before its body is read", async () => {
  const client = test_.client({ ...readWrite, secretAccessKey: "wrong" });
  const body = randomBytes(40 * 1024 * 1024);
  await expectRefusal(() => client.send(new PutObjectCommand({ Bucket, Key: `${prefix}large.bin`, Body: body })), "SignatureDoesNotMatch", 403);
  // The connection was closed rather than left with an unread body: the next request goes through.
  await test_.client(readWrite).send(new PutObjectCommand({ Bucket, Key: `${prefix}after-large.bin`, Body: "ok" }));
});

test("a key cannot be both an object and a folder of other objects: 400 InvalidArgument", async () => {
  const client = test_.client(readWrite);
  await client.send(new PutObjectCommand({ Bucket, Key: `${prefix}conflict/file`, Body: "file" }));
  await expectRefusal(put(client, `${prefix}conflict/file/child`), "InvalidArgument", 400);
  await expectRefusal(put(client, `${prefix}conflict`), "InvalidArgument", 400);
  const got = await client.send(new GetObjectCommand({ Bucket, Key: `${prefix}conflict/file` }));
  expect(await got.Body!.transformToString()).toBe("file");
});

test("an unknown access key is 403 InvalidAccessKeyId", async () => {
  const client = test_.client({ ...readWrite, accessKeyId: "HGRE0000000000000000" });
  await expectRefusal(put(client, `${prefix}x.bin`), "InvalidAccessKeyId", 403);
});

test("a wrong or missing session token is 403 InvalidToken", async () => {
  await expectRefusal(put(test_.client({ ...readWrite, sessionToken: readOnly.sessionToken }), `${prefix}x.bin`), "InvalidToken", 403);
  await expectRefusal(put(test_.client({ ...readWrite, sessionToken: undefined as unknown as string }), `${prefix}x.bin`), "InvalidToken", 403);
});

test("a credential past its expiration is 403 ExpiredToken", async () => {
  test_.clock.offsetMs = -3_600_000;
  const expired = await test_.store.issueCredentials({ prefix, mode: "ReadWrite", ttlSeconds: 900 });
  test_.clock.offsetMs = 0;
  expect(expired.expiration.getTime()).toBeLessThan(Date.now());
  await expectRefusal(put(test_.client(expired), `${prefix}x.bin`), "ExpiredToken", 403);
});

test("a request signed more than 15 minutes off the server's clock is 403 RequestTimeTooSkewed", async () => {
  test_.clock.offsetMs = 16 * 60_000;
  await expectRefusal(put(test_.client(readWrite), `${prefix}x.bin`), "RequestTimeTooSkewed", 403);
});

test("a request signed for another region is 400 AuthorizationHeaderMalformed", async () => {
  const client = new S3Client({ endpoint: test_.store.url, region: "eu-west-1", forcePathStyle: true, maxAttempts: 1, credentials: readWrite });
  try {
    await expectRefusal(put(client, `${prefix}x.bin`), "AuthorizationHeaderMalformed", 400);
  } finally {
    client.destroy();
  }
});

test("an unsigned request is 403 AccessDenied", async () => {
  const response = await fetch(`${test_.store.url}/hangar/${prefix}x.bin`, { method: "PUT", body: "anonymous" });
  expect(response.status).toBe(403);
  expect(await response.text()).toContain("<Code>AccessDenied</Code>");
});

test("an expired presigned URL is 403 AccessDenied", async () => {
  const url = await test_.store.presignGet(`${prefix}existing.txt`, { expiresInSeconds: 5 });
  expect((await fetch(url)).status).toBe(200);
  test_.clock.offsetMs = 6_000;
  const response = await fetch(url);
  expect(response.status).toBe(403);
  expect(await response.text()).toMatch(/<Code>AccessDenied<\/Code><Message>Request has expired.<\/Message>/);
});

test("a presigned URL with a tampered query or path is 403 SignatureDoesNotMatch, and writes nothing", async () => {
  const url = new URL(await test_.store.presignPut(`${prefix}presigned.bin`, { expiresInSeconds: 60 }));
  const before = await listFiles(test_.dataDir);
  const longer = new URL(url);
  longer.searchParams.set("X-Amz-Expires", "604800");
  const elsewhere = new URL(url);
  elsewhere.pathname = `/hangar/${prefix}elsewhere.bin`;
  for (const tampered of [longer, elsewhere]) {
    const response = await fetch(tampered, { method: "PUT", body: "tampered" });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("<Code>SignatureDoesNotMatch</Code>");
  }
  expect(await listFiles(test_.dataDir)).toEqual(before);
});

test("a presigned GET URL does not allow a PUT", async () => {
  const url = await test_.store.presignGet(`${prefix}existing.txt`, { expiresInSeconds: 60 });
  expect((await fetch(url, { method: "PUT", body: "overwritten" })).status).toBe(403);
});

test("keys with '..' or '.' segments or NUL bytes are 400 InvalidArgument, however they are encoded", async () => {
  const client = test_.client(readWrite);
  for (const Key of [`${prefix}../escape.bin`, `${prefix}a/../../x`, `${prefix}./x`, `${prefix}a\0b`, `${prefix}a//b`]) {
    await expectRefusal(put(client, Key), "InvalidArgument", 400);
  }
  // Signed as sent: fetch and URL would fold the encoded dots away before they reach the server.
  const before = await listFiles(test_.dataDir);
  const response = await sendSigned(test_.store.url, readWrite, { rawPath: `/hangar/${prefix}%2E%2E/%2E%2E/dots`, body: Buffer.from("x") });
  expect(response.status).toBe(400);
  expect(response.body).toContain("<Code>InvalidArgument</Code>");
  expect(await listFiles(test_.dataDir)).toEqual(before);
  await expect(test_.store.presignPut(`${prefix}../x`, { expiresInSeconds: 60 })).rejects.toMatchObject({ code: "InvalidArgument" });
});

test("a wrong Content-MD5 or CRC-32 is 400 BadDigest and stores nothing", async () => {
  const client = test_.client(readWrite);
  const Body = Buffer.from("checked bytes");
  await expectRefusal(() => client.send(new PutObjectCommand({ Bucket, Key: `${prefix}md5.bin`, Body, ContentMD5: "1B2M2Y8AsgTpgAmY7PhCfg==" })), "BadDigest", 400);
  await expectRefusal(() => client.send(new PutObjectCommand({ Bucket, Key: `${prefix}crc.bin`, Body, ChecksumCRC32: "AAAAAA==" })), "BadDigest", 400);
});

test("a body that differs from its signed SHA-256 is 400 XAmzContentSHA256Mismatch", async () => {
  const before = await listFiles(test_.dataDir);
  const response = await sendSigned(test_.store.url, readWrite, {
    rawPath: `/hangar/${prefix}sha.bin`,
    payloadHash: sha256Hex("the signed body"),
    body: Buffer.from("another body!!!"),
  });
  expect(response.status).toBe(400);
  expect(response.body).toContain("<Code>XAmzContentSHA256Mismatch</Code>");
  expect(await listFiles(test_.dataDir)).toEqual(before);
});

test("a part upload with a wrong CRC-32 is refused and leaves no part", async () => {
  const client = test_.client(readWrite);
  const Key = `${prefix}parts.bin`;
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key }));
  await expectRefusal(
    () => client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: randomBytes(100), ChecksumCRC32: "AAAAAA==" })),
    "BadDigest",
    400,
  );
  await expectRefusal(() => client.send(new UploadPartCommand({ Bucket, Key, UploadId: "x".repeat(32), PartNumber: 1, Body: "x" })), "NoSuchUpload", 404);
  await expectRefusal(() => client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 10_001, Body: "x" })), "InvalidArgument", 400);
});

/** A body in signed aws-chunked encoding with a signed CRC-32 trailer; `tamper` breaks the second chunk's signature. */
function signedChunkedBody(payload: Buffer, seed: ChunkSigning, tamper = false): Buffer {
  const sign = (kind: string, previous: string, hash: string, extra: string[] = []): string =>
    hmacHex(seed.key, [kind, seed.amzDate, seed.scope, previous, ...extra, hash].join("\n"));
  const pieces: Buffer[] = [];
  let previous = seed.seedSignature;
  const chunks = [payload.subarray(0, 65536), payload.subarray(65536), Buffer.alloc(0)];
  chunks.forEach((chunk, index) => {
    previous = sign("AWS4-HMAC-SHA256-PAYLOAD", previous, sha256Hex(chunk), [EMPTY_SHA256]);
    const signature = tamper && index === 1 ? "0".repeat(64) : previous;
    pieces.push(Buffer.from(`${chunk.length.toString(16)};chunk-signature=${signature}\r\n`), chunk, Buffer.from(chunk.length > 0 ? "\r\n" : ""));
  });
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(payload));
  const trailer = `x-amz-checksum-crc32:${checksum.toString("base64")}`;
  const trailerSignature = sign("AWS4-HMAC-SHA256-TRAILER", previous, sha256Hex(`${trailer}\n`));
  pieces.push(Buffer.from(`${trailer}\r\nx-amz-trailer-signature:${trailerSignature}\r\n\r\n`));
  return Buffer.concat(pieces);
}

test("signed aws-chunked bodies (STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER) are stored; a bad chunk signature is 403 and stores nothing", async () => {
  const payload = randomBytes(70_000);
  const send = (key: string, tamper: boolean) =>
    sendSigned(test_.store.url, readWrite, {
      rawPath: `/hangar/${prefix}${key}`,
      payloadHash: "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER",
      headers: { "content-encoding": "aws-chunked", "x-amz-decoded-content-length": String(payload.length), "x-amz-trailer": "x-amz-checksum-crc32" },
      body: (seed) => signedChunkedBody(payload, seed, tamper),
    });
  const before = await listFiles(test_.dataDir);
  const refused = await send("chunked-bad.bin", true);
  expect(refused.status).toBe(403);
  expect(refused.body).toContain("<Code>SignatureDoesNotMatch</Code>");
  expect(await listFiles(test_.dataDir)).toEqual(before);

  const stored = await send("chunked.bin", false);
  expect(stored.status).toBe(200);
  const got = await test_.client(readWrite).send(new GetObjectCommand({ Bucket, Key: `${prefix}chunked.bin` }));
  expect(Buffer.from(await got.Body!.transformToByteArray()).equals(payload)).toBe(true);
  expect(got.ContentEncoding).toBeUndefined();
});
