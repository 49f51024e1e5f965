import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createCredentialStore } from "./credential-store";
import { createDirectOperations, type DirectOperations } from "./direct-operations";
import { createDiskStore } from "./disk-store";
import { createMultipartStore } from "./multipart-store";
import { validateObjectKey } from "./object-key";
import { MAX_PRESIGN_SECONDS, presignUrl } from "./presign-url";
import { createS3RequestHandler } from "./s3-request-handler";
import type { AccessMode, ScopedCredentials } from "./scoped-credentials";
import { validateEmbeddedObjectStoreOptions, type EmbeddedObjectStoreOptions } from "./embedded-object-store-options";

/** Where S3 clients reach the store. */
export interface StoreLocation {
  bucket: string;
  region: string;
  /** The endpoint URL for S3 clients (path-style addressing). */
  endpoint: string;
}

/** A running store: its S3 endpoint, what it hands out to clients, and direct access for the embedding program. */
export interface EmbeddedObjectStore extends DirectOperations {
  /** Where the endpoint listens (`http://127.0.0.1:<port>`); `location.endpoint` is `publicUrl` when given. */
  readonly url: string;
  readonly location: StoreLocation;
  /** Issues session credentials for keys under `prefix` (no leading slash), valid for `ttlSeconds` (at least 900). */
  issueCredentials(scope: { prefix: string; mode: AccessMode; ttlSeconds: number }): Promise<ScopedCredentials>;
  /** A presigned (SigV4) single-PUT URL for `key`, valid 1 second to 7 days. */
  presignPut(key: string, options: { expiresInSeconds: number }): Promise<string>;
  /** A presigned (SigV4) GET URL for `key`, optionally overriding the response's headers. */
  presignGet(key: string, options: { expiresInSeconds: number; contentDisposition?: string; contentType?: string }): Promise<string>;
  /** Stops the endpoint: idle connections close at once, the rest after a short grace. */
  close(): Promise<void>;
}

/** How long an idle keep-alive connection is kept (the gateway keeps its own as long). */
export const IDLE_KEEP_ALIVE_MS = 65_000;

/**
 * Starts the embedded default's object store: an S3-compatible HTTP endpoint (path-style, SigV4) over bytes
 * on local disk under `dataDir`, so that unmodified S3 clients upload and download with the scoped
 * credentials and presigned URLs the platform hands out. The platform's own reads and writes go to disk
 * directly. `close()` stops the endpoint.
 */
export async function createEmbeddedObjectStore(options: EmbeddedObjectStoreOptions): Promise<EmbeddedObjectStore> {
  const { dataDir, port, host, bucket, region, publicUrl, rootCredential, now, logger } = validateEmbeddedObjectStoreOptions(options);
  const credentials = await createCredentialStore({ file: join(dataDir, "object-credentials.json"), now, ...(rootCredential && { root: rootCredential }) });
  const disk = await createDiskStore({ dataDir, bucket });
  const multipart = await createMultipartStore({ dataDir, disk, now });
  const handle = createS3RequestHandler({
    bucket,
    region,
    credentials,
    disk,
    multipart,
    now,
    onInternalError: (error, request) => logger.error({ err: error, ...request }, "object store request failed"),
  });
  // Idle keep-alive connections stay open for a minute (Node closes them after 5 s). S3 clients
  // pool their connections and reuse one without knowing the server is closing it: on a loaded
  // machine the gap between two parts of an upload passes 5 s, the reuse meets the close, and the
  // client sees ECONNRESET instead of a slower success. The headers deadline stays above it.
  const server = createServer({ requestTimeout: 0, keepAliveTimeout: IDLE_KEEP_ALIVE_MS, headersTimeout: IDLE_KEEP_ALIVE_MS + 5_000 });
  // Uploads may take long; a connection that stays silent this long is dropped.
  server.setTimeout(5 * 60_000);
  server.on("request", (req, res) => void handle(req, res, false));
  server.on("checkContinue", (req, res) => void handle(req, res, true));
  const url = await listen(server, port, host);
  const endpoint = publicUrl ?? url;
  let stopping: Promise<void> | undefined;

  const presign = async (method: "GET" | "PUT", key: string, expiresInSeconds: number, query: Array<[string, string]> = []): Promise<string> => {
    validateObjectKey(key);
    if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 1 || expiresInSeconds > MAX_PRESIGN_SECONDS) {
      throw new RangeError(`presigned URLs last from 1 to ${MAX_PRESIGN_SECONDS} seconds, not ${expiresInSeconds}`);
    }
    const { accessKeyId, secretAccessKey } = credentials.internal;
    const path = `/${bucket}/${key}`;
    return presignUrl({ method, endpoint, path, region, credential: { accessKeyId, secretAccessKey }, expiresInSeconds, now: now(), query });
  };

  return {
    url,
    location: { bucket, region, endpoint },
    async issueCredentials({ prefix, mode, ttlSeconds }): Promise<ScopedCredentials> {
      if (prefix === "" || prefix.startsWith("/")) throw new RangeError(`credentials need a prefix without a leading slash, not '${prefix}'`);
      if (!(ttlSeconds >= 900)) throw new RangeError(`credentials live at least 900 seconds, not ${ttlSeconds}`);
      const issued = await credentials.issue({ prefix, mode, ttlSeconds });
      return {
        accessKeyId: issued.accessKeyId,
        secretAccessKey: issued.secretAccessKey,
        sessionToken: issued.sessionToken!,
        region,
        bucket,
        requiredPrefix: issued.requiredPrefix,
        expiration: issued.expiration!,
      };
    },
    presignPut: (key, { expiresInSeconds }) => presign("PUT", key, expiresInSeconds),
    presignGet: (key, { expiresInSeconds, contentDisposition, contentType }) =>
      presign("GET", key, expiresInSeconds, [
        ...(contentDisposition === undefined ? [] : [["response-content-disposition", contentDisposition] as [string, string]]),
        ...(contentType === undefined ? [] : [["response-content-type", contentType] as [string, string]]),
      ]),
    ...createDirectOperations({ disk, now }),
    close: () => (stopping ??= stop(server)),
  };
}

function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
      resolve(`http://${shownHost}:${address.port}`);
    });
  });
}

/** Stops accepting connections, closes each as it falls idle, and cuts the rest after a short grace. */
function stop(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    // A response the client has read may not have finished on this side yet: keep closing idle ones.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const force = setTimeout(() => server.closeAllConnections(), 2_000);
    server.close((error) => {
      clearInterval(sweep);
      clearTimeout(force);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
