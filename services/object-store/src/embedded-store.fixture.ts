import { S3Client } from "@aws-sdk/client-s3";
import { createHmac } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ScopedCredentials } from "./scoped-credentials";
import { createEmbeddedObjectStore, type EmbeddedObjectStore } from "./embedded-object-store";
import type { EmbeddedObjectStoreOptions } from "./embedded-object-store-options";
import type { ChunkSigning } from "./aws-chunked-decoder";
import { formatAmzDate, sha256Hex } from "./sigv4";

/** A running store over a fresh temporary folder, with a clock tests can move. */
export interface TestStore {
  store: EmbeddedObjectStore;
  dataDir: string;
  /** Milliseconds added to the system clock, as the store sees it. */
  clock: { offsetMs: number };
  /** An AWS SDK v3 client for the endpoint, signing with `credentials`; one attempt, so refusals surface as they are. */
  client(credentials: Pick<ScopedCredentials, "accessKeyId" | "secretAccessKey" | "sessionToken">): S3Client;
  /** Stops the store (waiting for it), destroys the clients, removes the folder. */
  stop(): Promise<void>;
}

/** Starts a store on a free port; pass `dataDir` to restart over an earlier one's folder. */
export async function startTestStore(options: Partial<EmbeddedObjectStoreOptions> = {}): Promise<TestStore> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "hangar-s3-")));
  const clock = { offsetMs: 0 };
  const store = await createEmbeddedObjectStore({ port: 0, ...options, dataDir, now: () => new Date(Date.now() + clock.offsetMs) });
  const clients: S3Client[] = [];
  return {
    store,
    dataDir,
    clock,
    client(credentials) {
      const client = new S3Client({
        endpoint: store.url,
        region: store.location.region,
        forcePathStyle: true,
        maxAttempts: 1,
        credentials: {
          accessKeyId: credentials.accessKeyId,
          secretAccessKey: credentials.secretAccessKey,
          sessionToken: credentials.sessionToken,
        },
      });
      clients.push(client);
      return client;
    },
    async stop() {
      await store.close();
      clients.forEach((client) => client.destroy());
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every file below a folder, relative to it: what tests compare to prove that a refusal wrote nothing. */
export async function listFiles(folder: string): Promise<string[]> {
  try {
    const entries = await readdir(folder, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(folder.length + 1))
      .sort();
  } catch {
    return [];
  }
}

/** A request made by hand, for what SDKs do not send: the path goes out exactly as given. */
export interface HandMadeRequest {
  method?: string;
  /** Still percent-encoded; also the canonical URI signed. */
  rawPath: string;
  headers?: Record<string, string>;
  /** The signed `x-amz-content-sha256`; default the SHA-256 of `body`. */
  payloadHash?: string;
  /** The body, or a function of the signature (to chain chunk signatures from it). */
  body: Buffer | ((seed: ChunkSigning) => Buffer);
}

/** Signs a request (SigV4, Authorization header, every header signed) and sends it with node:http. */
export async function sendSigned(
  endpoint: string,
  credentials: Pick<ScopedCredentials, "accessKeyId" | "secretAccessKey" | "sessionToken">,
  request_: HandMadeRequest,
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  const url = new URL(endpoint);
  const method = request_.method ?? "PUT";
  const amzDate = formatAmzDate(new Date());
  const scope = { date: amzDate.slice(0, 8), region: "us-east-1", service: "s3" };
  const headers: Record<string, string> = {
    ...request_.headers,
    host: url.host,
    "x-amz-content-sha256": request_.payloadHash ?? sha256Hex(request_.body as Buffer),
    "x-amz-date": amzDate,
    "x-amz-security-token": credentials.sessionToken,
  };
  const names = Object.keys(headers).map((name) => name.toLowerCase()).sort();
  const canonical = [method, request_.rawPath, "", ...names.map((name) => `${name}:${headers[name]}`), "", names.join(";"), headers["x-amz-content-sha256"]].join("\n");
  const credentialScope = `${scope.date}/us-east-1/s3/aws4_request`;
  const key = documentedSigningKey(credentials.secretAccessKey, scope.date);
  const signature = hmacHex(key, ["AWS4-HMAC-SHA256", amzDate, credentialScope, sha256Hex(canonical)].join("\n"));
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${names.join(";")}, Signature=${signature}`;
  const body = typeof request_.body === "function" ? request_.body({ key, amzDate, scope: credentialScope, seedSignature: signature }) : request_.body;
  return new Promise((resolve, reject) => {
    const options = { host: url.hostname, port: Number(url.port), method, path: request_.rawPath, headers: { ...headers, "content-length": String(body.length) } };
    const req = request(options, (res) => {
      const chunks: Buffer[] = [];
      res
        .on("data", (chunk: Buffer) => chunks.push(chunk))
        .on("end", () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString(), headers: res.headers }));
    });
    req.on("error", reject).end(body);
  });
}

/** The SigV4 signing key of a secret for one day in us-east-1, derived as the AWS documentation spells it out (not by the store's signer). */
export function documentedSigningKey(secretAccessKey: string, date: string): Buffer {
  const step = (key: Buffer | string, data: string): Buffer => createHmac("sha256", key).update(data, "utf8").digest();
  return step(step(step(step(`AWS4${secretAccessKey}`, date), "us-east-1"), "s3"), "aws4_request");
}

/** Hex HMAC-SHA256: how tests sign strings to sign by hand. */
export function hmacHex(key: Uint8Array, data: string): string {
  return createHmac("sha256", key).update(data, "utf8").digest("hex");
}
