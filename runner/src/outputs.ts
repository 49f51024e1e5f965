import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { Invocation } from "@hangar/shared/proto/compute";
import type { GatewayClient } from "./gateway-client";

/** Files per upload transaction; clients keep to 500 (wire-notes.md). */
const BATCH_SIZE = 500;

/** How a dataset upload destination's prefix starts (see outputDestinationOf). */
const DATASET_DESTINATION = "dataset:";

/** Upload credentials as the data API hands them out. */
interface UploadCredentials {
  access_key_id: string;
  secret_access_key: string;
  session_token: string;
  region: string;
  bucket: string;
  endpoint?: string;
}

/** Where outputs go: a dataset, under an optional path prefix. */
export interface OutputDestination {
  datasetId: string;
  /** Prepended to each output's path in the dataset (`results/` puts `a.txt` at `results/a.txt`). */
  prefix: string;
  /** Recorded as the files' `origination`. */
  origination: string;
}

/**
 * Where an invocation's outputs go. Without an upload destination: its dataset. The compute
 * service stores a dataset destination (the client SDK's `{destination_type: "Dataset",
 * destination_id}`) as bucket `""` and prefix `dataset:<id>`: that dataset. A `{bucket, prefix}`
 * destination puts the outputs under `prefix` in the invocation's dataset: file bytes always live
 * in the platform's own store, which has no other buckets a runner could write to.
 */
export function outputDestinationOf(invocation: Invocation): OutputDestination {
  const datasetId = invocation.dataSource?.dataSourceId ?? "";
  const origination = `invocation ${invocation.invocationId}`;
  const stored = invocation.uploadDestination;
  if (!stored) return { datasetId, prefix: "", origination };
  if (stored.bucket === "" && stored.prefix.startsWith(DATASET_DESTINATION)) {
    return { datasetId: stored.prefix.slice(DATASET_DESTINATION.length), prefix: "", origination };
  }
  return { datasetId, prefix: stored.prefix, origination };
}

/** The paths of the regular files under `dir`, relative to it, in sorted order. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"))
    .sort();
}

/**
 * Uploads every file under `outputDir` into the destination dataset through the batch upload
 * flow the client SDK uses (begin, credentials, S3 PUT, complete), so completing each transaction
 * fires the same upload events as any client upload. Returns the dataset paths written.
 */
export async function uploadOutputs(gateway: GatewayClient, outputDir: string, destination: OutputDestination, signal: AbortSignal): Promise<string[]> {
  const files = await listFiles(outputDir);
  for (let i = 0; i < files.length; i += BATCH_SIZE) {
    await uploadBatch(gateway, outputDir, files.slice(i, i + BATCH_SIZE), destination, signal);
  }
  return files.map((file) => destinationPath(destination, file));
}

/** Where an output file lands in the dataset. */
export function destinationPath(destination: OutputDestination, relativePath: string): string {
  const prefix = destination.prefix.replace(/^\/+|\/+$/g, "");
  return prefix ? `${prefix}/${relativePath}` : relativePath;
}

async function uploadBatch(gateway: GatewayClient, outputDir: string, files: string[], destination: OutputDestination, signal: AbortSignal): Promise<void> {
  const manifest: Record<string, number> = {};
  for (const file of files) manifest[destinationPath(destination, file)] = (await stat(path.join(outputDir, file))).size;
  const begun = await gateway.call<{ transaction_id: string; upload_mappings: Record<string, string> }>(
    "POST",
    "/v1/files/upload",
    { association: { association_id: destination.datasetId, association_type: "dataset" }, origination: destination.origination, resource_manifest: manifest },
    signal,
  );
  const [credentials] = await gateway.call<UploadCredentials[]>("GET", `/v1/files/upload/${begun.transaction_id}/credentials`, undefined, signal);
  const s3 = s3With(credentials!);
  try {
    for (const file of files) {
      const uri = begun.upload_mappings[destinationPath(destination, file)]!;
      const key = uri.replace(/^s3:\/\/[^/]+\//, "");
      await new Upload({ client: s3, params: { Bucket: credentials!.bucket, Key: key, Body: createReadStream(path.join(outputDir, file)) }, abortController: abortControllerOf(signal) }).done();
    }
  } finally {
    s3.destroy();
  }
  await gateway.call("PUT", `/v1/files/upload/${begun.transaction_id}/complete`, undefined, signal);
}

function s3With(credentials: UploadCredentials): S3Client {
  return new S3Client({
    region: credentials.region,
    ...(credentials.endpoint ? { endpoint: credentials.endpoint, forcePathStyle: true } : {}),
    credentials: { accessKeyId: credentials.access_key_id, secretAccessKey: credentials.secret_access_key, sessionToken: credentials.session_token },
  });
}

// lib-storage takes an AbortController rather than a signal.
function abortControllerOf(signal: AbortSignal): AbortController {
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  return controller;
}
