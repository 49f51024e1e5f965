import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream } from "node:stream/web";
import { GatewayError, type GatewayClient } from "./gateway-client";
import { pathWithin, type Workspace } from "./workspace";

/** A file record as the data API returns it (the client SDK's FileRecord). */
export interface FileRecord {
  file_id: string;
  relative_path: string;
  [field: string]: unknown;
}

interface FilePage {
  items: FileRecord[];
  next_token: string | null;
}

/** Where an invocation's inputs come from. */
export interface InputRequest {
  datasetId: string;
  /** The invocation's `input_data` globs over the dataset's files; none means no inputs. */
  patterns: string[];
  /** The action's `requires_downloaded_inputs`: false lists the inputs without downloading them. */
  download: boolean;
}

/**
 * Resolves the input globs against the dataset's files, downloads each into the input directory
 * at its relative path, and writes the inputs manifest in the client SDK's ActionInputRecord
 * format: `{files: [[record, local path or null], ...], topics: []}`.
 */
export async function prepareInputs(gateway: GatewayClient, request: InputRequest, workspace: Workspace, signal: AbortSignal): Promise<FileRecord[]> {
  const files = request.patterns.length > 0 ? await matchingFiles(gateway, request, signal) : [];
  const entries: [FileRecord, string | null][] = [];
  for (const file of files) {
    entries.push([file, request.download ? await download(gateway, file, workspace.inputDir, signal) : null]);
  }
  await writeFile(workspace.inputsManifestFile, JSON.stringify({ files: entries, topics: [] }));
  return files;
}

/**
 * Where S3 clients reach the platform's object store, as the dataset's read credentials name it
 * (`endpoint`), or undefined for AWS's own endpoints or when the dataset is gone. The client SDK
 * does not read that field: boto3 takes a custom endpoint from `AWS_ENDPOINT_URL_S3`.
 */
export async function objectStoreEndpoint(gateway: GatewayClient, datasetId: string, signal: AbortSignal): Promise<string | undefined> {
  if (!datasetId) return undefined;
  try {
    const path = `/v1/datasets/id/${encodeURIComponent(datasetId)}/credentials?mode=ReadOnly`;
    const [credentials] = await gateway.call<{ endpoint?: string }[]>("GET", path, undefined, signal);
    return credentials?.endpoint || undefined;
  } catch (error) {
    if (error instanceof GatewayError && error.status === 404) return undefined;
    throw error;
  }
}

async function matchingFiles(gateway: GatewayClient, request: InputRequest, signal: AbortSignal): Promise<FileRecord[]> {
  const files: FileRecord[] = [];
  let pageToken: string | null = null;
  do {
    const page: FilePage = await gateway.call<FilePage>(
      "POST",
      `/v1/datasets/${encodeURIComponent(request.datasetId)}/files/query`,
      { include_patterns: request.patterns, ...(pageToken ? { page_token: pageToken } : {}) },
      signal,
    );
    files.push(...page.items);
    pageToken = page.next_token;
  } while (pageToken);
  return files;
}

async function download(gateway: GatewayClient, file: FileRecord, inputDir: string, signal: AbortSignal): Promise<string> {
  const target = pathWithin(inputDir, file.relative_path);
  const { url } = await gateway.call<{ url: string }>("GET", `/v1/files/${encodeURIComponent(file.file_id)}/signed-url`, undefined, signal);
  const response = await fetch(url, { signal });
  if (!response.ok || !response.body) throw new Error(`download of ${file.relative_path} failed: ${response.status}`);
  await mkdir(path.dirname(target), { recursive: true });
  await pipeline(Readable.fromWeb(response.body as ReadableStream), createWriteStream(target), { signal });
  return target;
}
