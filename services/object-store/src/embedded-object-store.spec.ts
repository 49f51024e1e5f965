import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { request } from "node:http";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { crc32 } from "node:zlib";
import type { ScopedCredentials } from "./scoped-credentials";
import { createEmbeddedObjectStore } from "./embedded-object-store";
import { listFiles, startTestStore, type TestStore } from "./embedded-store.fixture";

const MiB = 1024 * 1024;
const prefix = "datasets/d1/";
let test_: TestStore;
let credentials: ScopedCredentials;
let s3: S3Client;

beforeAll(async () => {
  test_ = await startTestStore();
  credentials = await test_.store.issueCredentials({ prefix, mode: "ReadWrite", ttlSeconds: 3600 });
  s3 = test_.client(credentials);
});
afterAll(() => test_.stop());

const md5 = (data: Buffer): string => createHash("md5").update(data).digest("hex");
const sha256 = (data: Buffer): string => createHash("sha256").update(data).digest("hex");
const crc32Base64 = (data: Buffer): string => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(crc32(data));
  return bytes.toString("base64");
};
const Bucket = "hangar";

test("issued credentials look like the wire's: HGRE key, the bucket, region and prefix, expiring after the TTL", () => {
  expect(credentials.accessKeyId).toMatch(/^HGRE[A-Z0-9]{16}$/);
  expect(credentials).toMatchObject({ bucket: "hangar", region: "us-east-1", requiredPrefix: prefix });
  expect(credentials.sessionToken.length).toBeGreaterThan(20);
  expect(credentials.expiration.getTime() - Date.now()).toBeGreaterThan(3590_000);
  expect(test_.store.location).toEqual({ bucket: "hangar", region: "us-east-1", endpoint: test_.store.url });
});

test("a single PUT then GET and HEAD give back the same bytes, ETag, CRC-32 and content type", async () => {
  const Key = `${prefix}single/a b+ü€.bin`;
  const body = randomBytes(100_000);
  const put = await s3.send(new PutObjectCommand({ Bucket, Key, Body: body, ContentType: "application/x-test" }));
  expect(put.ETag).toBe(`"${md5(body)}"`);
  expect(put.ChecksumCRC32).toBe(crc32Base64(body));

  const got = await s3.send(new GetObjectCommand({ Bucket, Key }));
  expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
  expect(got).toMatchObject({ ETag: `"${md5(body)}"`, ContentLength: 100_000, ContentType: "application/x-test", ChecksumCRC32: crc32Base64(body) });

  const head = await s3.send(new HeadObjectCommand({ Bucket, Key }));
  expect(head).toMatchObject({ ETag: `"${md5(body)}"`, ContentLength: 100_000 });
  expect(await test_.store.head(Key)).toEqual({ size: 100_000, etag: `"${md5(body)}"` });
  expect(existsSync(join(test_.dataDir, "objects", "hangar", ...Key.split("/")))).toBe(true);
});

test("a streamed PUT (aws-chunked with a CRC-32 trailer) is decoded and verified", async () => {
  const Key = `${prefix}single/streamed.bin`;
  const body = randomBytes(3 * MiB + 17);
  const pieces = Array.from({ length: 4 }, (_, i) => body.subarray(i * (body.length / 4), (i + 1) * (body.length / 4)));
  const put = await s3.send(new PutObjectCommand({ Bucket, Key, Body: Readable.from(pieces), ContentLength: body.length }));
  expect(put.ChecksumCRC32).toBe(crc32Base64(body));
  const got = await s3.send(new GetObjectCommand({ Bucket, Key }));
  expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
});

test.each([
  ["CRC32C", "ChecksumCRC32C", "4waSgw==", "AAAAAA=="],
  ["CRC64NVME", "ChecksumCRC64NVME", "rosUhgp5mIg=", "AAAAAAAAAAA="],
] as const)("a PUT with a %s checksum (the SDK's trailer) is verified, stored and answered; a wrong value is BadDigest", async (algorithm, field, checkValue, wrongValue) => {
  // The catalogue's check value: the checksum of "123456789".
  const Key = `${prefix}single/${algorithm}.txt`;
  const put = await s3.send(new PutObjectCommand({ Bucket, Key, Body: "123456789", ChecksumAlgorithm: algorithm }));
  expect(put[field]).toBe(checkValue);
  const wrong = s3.send(new PutObjectCommand({ Bucket, Key: `${prefix}single/${algorithm}-wrong.txt`, Body: "123456789", [field]: wrongValue }));
  await expect(wrong).rejects.toMatchObject({ name: "BadDigest", $metadata: { httpStatusCode: 400 } });
});

test("a 50 MiB upload through lib-storage's Upload (8 MiB parts) completes, and downloads with the same SHA-256", async () => {
  const Key = `${prefix}multipart/big.bin`;
  const body = randomBytes(50 * MiB);
  const upload = new Upload({ client: s3, params: { Bucket, Key, Body: body }, partSize: 8 * MiB, queueSize: 4 });
  const result = await upload.done();
  const partMd5s = Array.from({ length: 7 }, (_, i) => createHash("md5").update(body.subarray(i * 8 * MiB, (i + 1) * 8 * MiB)).digest());
  expect(result.ETag).toBe(`"${md5(Buffer.concat(partMd5s))}-7"`);

  const got = await s3.send(new GetObjectCommand({ Bucket, Key }));
  expect(got.ContentLength).toBe(50 * MiB);
  expect(got.ETag).toBe(result.ETag);
  const downloaded = await buffer(got.Body as Readable);
  expect(sha256(downloaded)).toBe(sha256(body));
  expect(await listFiles(join(test_.dataDir, "multipart"))).toEqual([]);
});

test("ranged GETs answer 206 with the slice, suffix ranges count from the end, a range past the end is 416", async () => {
  const Key = `${prefix}range/r.bin`;
  const body = randomBytes(1000);
  await s3.send(new PutObjectCommand({ Bucket, Key, Body: body }));
  const middle = await s3.send(new GetObjectCommand({ Bucket, Key, Range: "bytes=10-19" }));
  expect(middle.ContentRange).toBe("bytes 10-19/1000");
  expect(middle.ChecksumCRC32).toBeUndefined();
  expect(Buffer.from(await middle.Body!.transformToByteArray()).equals(body.subarray(10, 20))).toBe(true);
  const suffix = await s3.send(new GetObjectCommand({ Bucket, Key, Range: "bytes=-5" }));
  expect(Buffer.from(await suffix.Body!.transformToByteArray()).equals(body.subarray(995))).toBe(true);
  await expect(s3.send(new GetObjectCommand({ Bucket, Key, Range: "bytes=1000-" }))).rejects.toMatchObject({
    name: "InvalidRange",
    $metadata: { httpStatusCode: 416 },
  });
});

test("ListObjectsV2 lists under the prefix in key order, pages with continuation tokens, rolls up with a delimiter", async () => {
  const base = `${prefix}list/`;
  const keys = ["a.txt", "b-c.txt", "b/c.txt", "b/d/e.txt", "sub/c.txt", "z.txt"].map((name) => base + name);
  for (const Key of keys) await s3.send(new PutObjectCommand({ Bucket, Key, Body: Key }));

  const seen: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: base, MaxKeys: 2, ContinuationToken }));
    expect(page.KeyCount).toBeLessThanOrEqual(2);
    seen.push(...(page.Contents ?? []).map((item) => item.Key!));
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken !== undefined);
  expect(seen).toEqual(keys);

  const rolled = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: base, Delimiter: "/" }));
  expect(rolled.Contents?.map((item) => [item.Key, item.Size, item.ETag])).toEqual(
    [base + "a.txt", base + "b-c.txt", base + "z.txt"].map((Key) => [Key, Key.length, `"${md5(Buffer.from(Key))}"`]),
  );
  expect(rolled.CommonPrefixes?.map((item) => item.Prefix)).toEqual([base + "b/", base + "sub/"]);
  const startAfter = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: base, StartAfter: base + "b/c.txt" }));
  expect(startAfter.Contents?.map((item) => item.Key)).toEqual([base + "b/d/e.txt", base + "sub/c.txt", base + "z.txt"]);
  const partial = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: base + "b" }));
  expect(partial.Contents?.map((item) => item.Key)).toEqual([base + "b-c.txt", base + "b/c.txt", base + "b/d/e.txt"]);
});

test("ListObjects (V1) pages with markers", async () => {
  const base = `${prefix}list-v1/`;
  for (const name of ["1", "2", "3"]) await s3.send(new PutObjectCommand({ Bucket, Key: base + name, Body: name }));
  const first = await s3.send(new ListObjectsCommand({ Bucket, Prefix: base, MaxKeys: 2 }));
  expect([first.IsTruncated, first.Contents?.map((item) => item.Key)]).toEqual([true, [base + "1", base + "2"]]);
  const second = await s3.send(new ListObjectsCommand({ Bucket, Prefix: base, Marker: first.NextMarker }));
  expect([second.IsTruncated, second.Contents?.map((item) => item.Key)]).toEqual([false, [base + "3"]]);
});

test("presigned PUT and GET URLs work with plain fetch, and the GET may override the response headers", async () => {
  const key = `${prefix}presigned/p.bin`;
  const body = randomBytes(10_000);
  const put = await fetch(await test_.store.presignPut(key, { expiresInSeconds: 60 }), { method: "PUT", body });
  expect(put.status).toBe(200);
  expect(put.headers.get("etag")).toBe(`"${md5(body)}"`);
  const url = await test_.store.presignGet(key, { expiresInSeconds: 60, contentDisposition: 'attachment; filename="p.bin"', contentType: "application/x-p" });
  const got = await fetch(url);
  expect(got.status).toBe(200);
  expect(got.headers.get("content-disposition")).toBe('attachment; filename="p.bin"');
  expect(got.headers.get("content-type")).toBe("application/x-p");
  expect(Buffer.from(await got.arrayBuffer()).equals(body)).toBe(true);
});

test("the AWS SDK's presigner, with issued credentials, makes URLs the endpoint accepts", async () => {
  const Key = `${prefix}presigned/sdk.bin`;
  const body = Buffer.from("presigned by the SDK");
  const putUrl = await getSignedUrl(s3, new PutObjectCommand({ Bucket, Key }), { expiresIn: 60 });
  const put = await fetch(putUrl, { method: "PUT", body });
  expect(put.status).toBe(200);
  const got = await fetch(await getSignedUrl(s3, new GetObjectCommand({ Bucket, Key }), { expiresIn: 60 }));
  expect(await got.text()).toBe("presigned by the SDK");
});

test("multipart uploads can be listed and aborted; completing with a small part that is not the last is EntityTooSmall", async () => {
  const Key = `${prefix}multipart/small-parts.bin`;
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
  const parts = [];
  for (const PartNumber of [1, 2]) {
    const { ETag } = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: randomBytes(1024) }));
    parts.push({ PartNumber, ETag });
  }
  const listed = await s3.send(new ListPartsCommand({ Bucket, Key, UploadId }));
  expect(listed.Parts?.map((part) => [part.PartNumber, part.Size, part.ETag])).toEqual(parts.map((part) => [part.PartNumber, 1024, part.ETag]));
  await expect(
    s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } })),
  ).rejects.toMatchObject({ name: "EntityTooSmall", $metadata: { httpStatusCode: 400 } });
  await s3.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }));
  await expect(s3.send(new ListPartsCommand({ Bucket, Key, UploadId }))).rejects.toMatchObject({ name: "NoSuchUpload" });
  await expect(s3.send(new HeadObjectCommand({ Bucket, Key }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
});

test("completing with a wrong ETag is InvalidPart, with parts out of order InvalidPartOrder", async () => {
  const Key = `${prefix}multipart/bad-complete.bin`;
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
  const { ETag } = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: randomBytes(5 * MiB) }));
  await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 2, Body: randomBytes(10) }));
  const complete = (Parts: Array<{ PartNumber: number; ETag: string }>) =>
    s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts } }));
  await expect(complete([{ PartNumber: 1, ETag: `"${"0".repeat(32)}"` }])).rejects.toMatchObject({ name: "InvalidPart" });
  await expect(complete([{ PartNumber: 2, ETag: "x" }, { PartNumber: 1, ETag: ETag! }])).rejects.toMatchObject({ name: "InvalidPartOrder" });
  const listed = await s3.send(new ListPartsCommand({ Bucket, Key, UploadId }));
  const done = await complete(listed.Parts!.map((part) => ({ PartNumber: part.PartNumber!, ETag: part.ETag! })));
  expect(done.ETag).toMatch(/^"[0-9a-f]{32}-2"$/);
  expect((await s3.send(new HeadObjectCommand({ Bucket, Key }))).ContentLength).toBe(5 * MiB + 10);
});

test("DeleteObject removes the object (and deleting it again is fine); DeleteObjects refuses keys out of scope one by one", async () => {
  const Key = `${prefix}delete/d.txt`;
  await s3.send(new PutObjectCommand({ Bucket, Key, Body: "bye" }));
  await s3.send(new DeleteObjectCommand({ Bucket, Key }));
  await s3.send(new DeleteObjectCommand({ Bucket, Key }));
  await expect(s3.send(new GetObjectCommand({ Bucket, Key }))).rejects.toMatchObject({ name: "NoSuchKey", $metadata: { httpStatusCode: 404 } });
  expect(existsSync(join(test_.dataDir, "objects", "hangar", ...`${prefix}delete`.split("/")))).toBe(false);

  await s3.send(new PutObjectCommand({ Bucket, Key, Body: "again" }));
  const result = await s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: [{ Key }, { Key: "datasets/other/x" }] } }));
  expect(result.Deleted?.map((item) => item.Key)).toEqual([Key]);
  expect(result.Errors?.map((item) => [item.Key, item.Code])).toEqual([["datasets/other/x", "AccessDenied"]]);
});

test("HeadBucket answers for the store's bucket; another bucket is NoSuchBucket", async () => {
  const head = await s3.send(new HeadBucketCommand({ Bucket }));
  expect(head.BucketRegion).toBe("us-east-1");
  await expect(s3.send(new GetObjectCommand({ Bucket: "other", Key: `${prefix}x` }))).rejects.toMatchObject({ name: "NoSuchBucket" });
});

test("the platform's direct operations and the S3 endpoint see the same objects", async () => {
  const key = `${prefix}direct/exported.csv`;
  const body = Buffer.from("a,b\n1,2\n");
  await test_.store.putObject(key, Readable.from([body.subarray(0, 3), body.subarray(3)]), "text/csv");
  expect(await test_.store.head(key)).toEqual({ size: body.length, etag: `"${md5(body)}"` });
  const got = await s3.send(new GetObjectCommand({ Bucket, Key: key }));
  expect(got.ContentType).toBe("text/csv");
  expect(await got.Body!.transformToString()).toBe("a,b\n1,2\n");
  expect((await buffer(await test_.store.getObject(key))).equals(body)).toBe(true);
  await test_.store.deleteObjects([key, `${prefix}direct/absent`]);
  expect(await test_.store.head(key)).toBeUndefined();
  await expect(test_.store.getObject(key)).rejects.toMatchObject({ code: "NoSuchKey" });
});

describe("after a restart over the same folder", () => {
  test("issued credentials, presigned URLs and objects still work", async () => {
    const first = await startTestStore();
    const issued = await first.store.issueCredentials({ prefix: "uploads/t1/", mode: "ReadWrite", ttlSeconds: 900 });
    await first.client(issued).send(new PutObjectCommand({ Bucket, Key: "uploads/t1/a", Body: "kept" }));
    const url = await first.store.presignGet("uploads/t1/a", { expiresInSeconds: 600 });
    await first.store.close();
    // The file holds secrets: readable by the owner only.
    expect((await stat(join(first.dataDir, "object-credentials.json"))).mode & 0o777).toBe(0o600);

    const second = await startTestStore({ dataDir: first.dataDir, port: Number(new URL(first.store.url).port) });
    try {
      const got = await second.client(issued).send(new GetObjectCommand({ Bucket, Key: "uploads/t1/a" }));
      expect(await got.Body!.transformToString()).toBe("kept");
      expect(await (await fetch(url)).text()).toBe("kept");
    } finally {
      await second.stop();
      await first.stop();
    }
  });
});

describe("options", () => {
  test("bad options are refused at once, all of them named", async () => {
    await expect(createEmbeddedObjectStore({ dataDir: "/tmp/x", port: 70_000, bucket: "Bad_Bucket", publicUrl: "http://proxy/s3" })).rejects.toThrow(
      /port must be 0-65535.*bucket 'Bad_Bucket'.*publicUrl must be an http\(s\) origin/,
    );
  });

  test("with a public URL, clients are told it and presigned URLs point at it", async () => {
    const behindProxy = await startTestStore({ publicUrl: "https://files.example.test" });
    try {
      expect(behindProxy.store.location.endpoint).toBe("https://files.example.test");
      await behindProxy.store.putObject("shared/a.txt", Buffer.from("proxied"));
      const url = new URL(await behindProxy.store.presignGet("shared/a.txt", { expiresInSeconds: 60 }));
      expect(url.origin).toBe("https://files.example.test");
      // What the proxy forwards: the same path and query, with the public host.
      const { port } = new URL(behindProxy.store.url);
      const body = await new Promise<string>((resolve, reject) => {
        request({ host: "127.0.0.1", port: Number(port), path: url.pathname + url.search, headers: { host: url.host } }, (res) => {
          res.setEncoding("utf8");
          let text = "";
          res.on("data", (chunk: string) => (text += chunk)).on("end", () => resolve(`${res.statusCode} ${text}`));
        })
          .on("error", reject)
          .end();
      });
      expect(body).toBe("200 proxied");
    } finally {
      await behindProxy.stop();
    }
  });
});
