import { readFile } from "node:fs/promises";
import { GatewayError, type GatewayClient } from "./gateway-client";
import { destinationPath, type OutputDestination } from "./outputs";

/** One line of the file changeset file (the client SDK's FilesChangesetItem). */
interface FileChangesetItem {
  relative_path: string;
  /** The SDK's UpdateFileRecordRequest: `description`, `device_id`, `metadata_changeset`, `ingestion_complete`. */
  update: Record<string, unknown>;
}

/** Applies the dataset changeset the action wrote, if any, to the invocation's dataset (`PUT /v1/datasets/{id}`). */
export async function applyDatasetChangeset(gateway: GatewayClient, file: string, datasetId: string, signal: AbortSignal): Promise<boolean> {
  const text = (await readFile(file, "utf8")).trim();
  if (!text) return false;
  const changeset = JSON.parse(text) as Record<string, unknown>;
  await gateway.call("PUT", `/v1/datasets/${encodeURIComponent(datasetId)}`, { metadata_changeset: changeset }, signal);
  return true;
}

/**
 * Applies the file changesets the action appended, in order, to the files it wrote (after they
 * were uploaded): each line's update goes to `PUT /v1/files/record/{file_id}` of the file at that
 * path in the destination. Lines for files that are not there are skipped, as the client SDK
 * does. Returns how many updates were applied.
 */
export async function applyFileChangesets(gateway: GatewayClient, file: string, destination: OutputDestination, signal: AbortSignal): Promise<number> {
  const items = (await readFile(file, "utf8"))
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as FileChangesetItem);
  const fileIds = new Map<string, string | null>();
  let applied = 0;
  for (const item of items) {
    const datasetPath = destinationPath(destination, item.relative_path);
    if (!fileIds.has(datasetPath)) fileIds.set(datasetPath, await fileIdAt(gateway, datasetPath, destination.datasetId, signal));
    const fileId = fileIds.get(datasetPath);
    if (!fileId) continue;
    await gateway.call("PUT", `/v1/files/record/${encodeURIComponent(fileId)}`, setFields(item.update), signal);
    applied += 1;
  }
  return applied;
}

async function fileIdAt(gateway: GatewayClient, datasetPath: string, datasetId: string, signal: AbortSignal): Promise<string | null> {
  try {
    const path = `/v1/files/record/path/${encodeURIComponent(datasetPath)}/association/${encodeURIComponent(datasetId)}`;
    return (await gateway.call<{ file_id: string }>("GET", path, undefined, signal)).file_id;
  } catch (error) {
    if (error instanceof GatewayError && error.status === 404) return null;
    throw error;
  }
}

/**
 * The fields of an update that the action set. The client SDK writes a field it leaves unset as
 * its NotSet sentinel, which serializes as `{}` (`"description": {}`); `null` is a value
 * (`set_description(path, None)` clears the description).
 */
export function setFields(update: FileChangesetItem["update"]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined && !isNotSet(value)));
}

const isNotSet = (value: unknown): boolean =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
