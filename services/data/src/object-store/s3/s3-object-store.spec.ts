import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { HeadBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ObjectStore } from "../object-store";
import { createS3ObjectStore } from "./s3-object-store";
import type { S3ObjectStoreOptions } from "./s3-object-store-options";
import { createSessionPolicy } from "./session-policy";
import { startS3TestServer, type S3TestServer } from "./s3-test-server.fixture";

const ROLE_ARN = "arn:aws:iam::123456789012:role/hangar-uploads";

let server: S3TestServer;
let options: S3ObjectStoreOptions;
let store: ObjectStore;

beforeAll(async () => {
  server = await startS3TestServer();
  options = {
    bucket: `hangar-test-${randomBytes(6).toString("hex")}`,
    region: server.region,
    endpoint: server.endpoint,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    roleArn: ROLE_ARN,
    createBucket: true,
  };
  store = await createS3ObjectStore(options);
}, 180_000);

afterAll(async () => {
  await store?.close();
  await server?.stop();
});

const key = (name: string) => `org-1/${randomUUID()}/${name}`;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** An HTTP proxy to `target` that keeps every request body, to see what the store sends to STS. */
async function startRecordingProxy(target: string): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      bodies.push(body.toString());
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== "host" && name !== "content-length"));
      fetch(`${target}${req.url}`, { method: req.method, headers: headers as Record<string, string>, body })
        .then(async (upstream) => {
          res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "text/xml" });
          res.end(Buffer.from(await upstream.arrayBuffer()));
        })
        .catch((err: unknown) => res.writeHead(502).end(String(err)));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise<void>((resolve, reject) => proxy.close((err) => (err ? reject(err) : resolve()))),
  };
}

function clientFor(credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }): S3Client {
  return new S3Client({ region: server.region, endpoint: server.endpoint, forcePathStyle: true, credentials });
}

describe("bucket", () => {
  test("createBucket creates the missing bucket", async () => {
    const client = clientFor(server);
    try {
      const out = await client.send(new HeadBucketCommand({ Bucket: options.bucket }));
      expect(out.$metadata.httpStatusCode).toBe(200);
    } finally {
      client.destroy();
    }
  });

  test("createBucket leaves an existing bucket as it is", async () => {
    const k = key("kept.txt");
    await store.putObject(k, Buffer.from("kept"));
    const again = await createS3ObjectStore(options);
    try {
      expect(await again.head(k)).toEqual({ size: 4, etag: expect.any(String) });
    } finally {
      await again.close();
    }
  });

  test("location names the bucket, region and endpoint", () => {
    expect(store.location).toEqual({ bucket: options.bucket, region: server.region, endpoint: server.endpoint });
  });
});

describe("presigned URLs", () => {
  test("a presigned PUT takes a plain fetch; head and getObject see the bytes", async () => {
    const k = key("scan.mcap");
    const bytes = randomBytes(12_345);
    const url = await store.presignPut(k, { expiresInSeconds: 600 });
    const put = await fetch(url, { method: "PUT", body: bytes });
    expect(put.status).toBe(200);
    expect(await store.head(k)).toEqual({ size: 12_345, etag: createHash("md5").update(bytes).digest("hex") });
    expect((await readAll(await store.getObject(k))).equals(bytes)).toBe(true);
  });

  test("a presigned GET returns the bytes with the overridden disposition and type", async () => {
    const k = key("report.csv");
    await store.putObject(k, Buffer.from("a,b\n1,2\n"), "text/plain");
    const url = await store.presignGet(k, {
      expiresInSeconds: 600,
      contentDisposition: 'attachment; filename="report.csv"',
      contentType: "text/csv",
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="report.csv"');
    expect(res.headers.get("content-type")).toBe("text/csv");
    expect(await res.text()).toBe("a,b\n1,2\n");
  });

  test("a presigned GET without overrides keeps the stored content type", async () => {
    const k = key("notes.json");
    await store.putObject(k, Buffer.from("{}"), "application/json");
    const res = await fetch(await store.presignGet(k, { expiresInSeconds: 600 }));
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("content-disposition")).toBeNull();
  });
});

describe("objects", () => {
  test("putObject writes a Buffer", async () => {
    const k = key("small.bin");
    const bytes = randomBytes(1_000);
    await store.putObject(k, bytes, "application/octet-stream");
    expect(await store.head(k)).toEqual({ size: 1_000, etag: createHash("md5").update(bytes).digest("hex") });
    expect((await readAll(await store.getObject(k))).equals(bytes)).toBe(true);
  });

  test("putObject uploads a 20 MiB stream of unknown length in parts", async () => {
    const k = key("export.bin");
    const chunk = randomBytes(1024 * 1024);
    const body = Readable.from((function* () {
      for (let i = 0; i < 20; i++) yield chunk;
    })());
    await store.putObject(k, body);
    const head = await store.head(k);
    expect(head?.size).toBe(20 * 1024 * 1024);
    expect(head?.etag).toMatch(/^[0-9a-f]{32}-4$/); // a multipart ETag: 4 parts of 5 MiB
    const back = await readAll(await store.getObject(k));
    expect(createHash("sha256").update(back).digest("hex")).toBe(
      createHash("sha256").update(Buffer.concat(Array(20).fill(chunk) as Buffer[])).digest("hex"),
    );
  }, 60_000);

  test("head of a missing key is undefined", async () => {
    expect(await store.head(key("missing"))).toBeUndefined();
  });

  test("getObject of a missing key is NotFound", async () => {
    const k = key("missing");
    await expect(store.getObject(k)).rejects.toMatchObject({ code: Code.NotFound, rawMessage: `object '${k}' not found` });
  });

  test("deleteObjects removes present keys and ignores absent ones", async () => {
    const [a, b] = [key("a.txt"), key("b.txt")];
    await store.putObject(a, Buffer.from("a"));
    await store.putObject(b, Buffer.from("b"));
    await store.deleteObjects([a, key("never-written"), b]);
    expect(await store.head(a)).toBeUndefined();
    expect(await store.head(b)).toBeUndefined();
  });

  test("deleteObjects sends more than 1000 keys in batches", async () => {
    const last = key("last.txt");
    await store.putObject(last, Buffer.from("z"));
    const keys = [...Array.from({ length: 1_000 }, (_, i) => key(`absent-${i}`)), last];
    await store.deleteObjects(keys);
    expect(await store.head(last)).toBeUndefined();
  });

  test("deleteObjects of no keys does nothing", async () => {
    await expect(store.deleteObjects([])).resolves.toBeUndefined();
  });
});

describe("issueCredentials", () => {
  test("returns STS credentials for the prefix that can write below it", async () => {
    const prefix = `org-1/${randomUUID()}/`;
    const creds = await store.issueCredentials({ prefix, mode: "ReadWrite", ttlSeconds: 3600 });
    expect(creds).toMatchObject({ region: server.region, bucket: options.bucket, requiredPrefix: prefix });
    expect(creds.accessKeyId).not.toBe(server.accessKeyId);
    expect(creds.sessionToken).not.toBe("");
    const client = clientFor(creds);
    try {
      await client.send(new PutObjectCommand({ Bucket: creds.bucket, Key: `${prefix}robot.mcap`, Body: "bytes" }));
    } finally {
      client.destroy();
    }
    expect(await store.head(`${prefix}robot.mcap`)).toEqual({ size: 5, etag: expect.any(String) });
  });

  test("the expiration lies at least 15 minutes ahead and serialises with a timezone", async () => {
    const before = Date.now();
    const creds = await store.issueCredentials({ prefix: "org-1/ds-1/", mode: "ReadOnly", ttlSeconds: 60 });
    expect(creds.expiration.getTime()).toBeGreaterThanOrEqual(before + 900_000 - 1_000);
    expect(JSON.stringify(creds.expiration)).toMatch(/^"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"$/);
  });

  test("the expiration follows a TTL above the minimum", async () => {
    const before = Date.now();
    const creds = await store.issueCredentials({ prefix: "org-1/ds-1/", mode: "ReadOnly", ttlSeconds: 3600 });
    expect(creds.expiration.getTime()).toBeGreaterThanOrEqual(before + 3_600_000 - 1_000);
    expect(creds.expiration.getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000 + 1_000);
  });

  test("AssumeRole carries the role, a session name, the minimum duration and the session policy", async () => {
    const recorder = await startRecordingProxy(server.endpoint);
    const viaRecorder = await createS3ObjectStore({ ...options, stsEndpoint: recorder.url, createBucket: false });
    try {
      const prefix = `org-1/${randomUUID()}/`;
      await viaRecorder.issueCredentials({ prefix, mode: "ReadWrite", ttlSeconds: 60 });
      expect(recorder.bodies).toHaveLength(1);
      const form = new URLSearchParams(recorder.bodies[0]);
      expect(form.get("Action")).toBe("AssumeRole");
      expect(form.get("RoleArn")).toBe(ROLE_ARN);
      expect(form.get("RoleSessionName")).toMatch(/^hangar-[0-9a-f]{16}$/);
      expect(form.get("DurationSeconds")).toBe("900");
      expect(JSON.parse(form.get("Policy")!)).toEqual(createSessionPolicy(options.bucket, prefix, "ReadWrite"));
    } finally {
      await viaRecorder.close();
      await recorder.close();
    }
  });

  test("refuses without a role: the platform's own keys are never handed out", async () => {
    const { roleArn: _, ...withoutRole } = options;
    const plain = await createS3ObjectStore({ ...withoutRole, createBucket: false });
    try {
      const issued = plain.issueCredentials({ prefix: "org-1/ds-1/", mode: "ReadOnly", ttlSeconds: 900 });
      await expect(issued).rejects.toBeInstanceOf(ConnectError);
      await expect(issued).rejects.toMatchObject({
        code: Code.FailedPrecondition,
        rawMessage: "scoped credentials are not available: the S3 object store has no role to assume (set its roleArn)",
      });
    } finally {
      await plain.close();
    }
  });

  test("refuses an empty prefix, which would cover the whole bucket", async () => {
    await expect(store.issueCredentials({ prefix: "", mode: "ReadOnly", ttlSeconds: 900 })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: "prefix: must not be empty",
    });
  });
});
