// A batch upload as the client SDK does it, each step timed on its own.
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { s3ClientFor } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { PutObjectCommand } = require("@aws-sdk/client-s3");

/** Begins a batch upload of `manifest` (path -> size) into `association`; resolves `{ begun, beginMs }`. */
export async function beginUpload(api, association, manifest) {
  const started = performance.now();
  const begun = (await api("POST", "/v1/files/upload", { association, origination: "bench", resource_manifest: manifest })).data;
  return { begun, beginMs: performance.now() - started };
}

/**
 * Fetches the transaction's credentials and PUTs every object of `manifest` (random bytes of its
 * size) to the S3-compatible store at `concurrency`; resolves `{ credentialsMs, putMs }`, the PUTs
 * alone in `putMs`.
 */
export async function putObjects(api, begun, manifest, concurrency = 16) {
  let started = performance.now();
  const creds = (await api("GET", `/v1/files/upload/${begun.transaction_id}/credentials`)).data[0];
  const credentialsMs = performance.now() - started;
  const s3 = s3ClientFor(creds);
  const queue = Object.entries(manifest);
  const put = async () => {
    for (let next = queue.pop(); next; next = queue.pop()) {
      const [filePath, size] = next;
      const key = begun.upload_mappings[filePath].replace(/^s3:\/\/[^/]+\//, "");
      await s3.send(new PutObjectCommand({ Bucket: creds.bucket, Key: key, Body: randomBytes(size) }));
    }
  };
  started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, put));
  const putMs = performance.now() - started;
  s3.destroy();
  return { credentialsMs, putMs };
}

/** Completes a begun upload; resolves the ms it took. */
export async function completeUpload(api, begun) {
  const started = performance.now();
  await api("PUT", `/v1/files/upload/${begun.transaction_id}/complete`, {});
  return performance.now() - started;
}

/**
 * The whole upload (begin, credentials, PUTs, complete) of `manifest` into `association`; resolves
 * each step's ms, `totalMs` end to end and the begun transaction.
 */
export async function uploadBatch(api, association, manifest, concurrency = 16) {
  const started = performance.now();
  const { begun, beginMs } = await beginUpload(api, association, manifest);
  const { credentialsMs, putMs } = await putObjects(api, begun, manifest, concurrency);
  const completeMs = await completeUpload(api, begun);
  return { begun, beginMs, credentialsMs, putMs, completeMs, totalMs: performance.now() - started };
}
