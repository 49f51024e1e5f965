import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { invalidArgument, quoteValue } from "@hangar/shared";

/** The data source types an invocation may run on (the spec names only `Dataset`). */
const DATA_SOURCE_TYPES = ["Dataset"];

/** Checks `data_source_type`. */
export function checkDataSourceType(value: string): string {
  if (!DATA_SOURCE_TYPES.includes(value)) throw invalidArgument("data_source_type", `must be Dataset, got ${quoteValue(value)}`);
  return value;
}

/**
 * Who asked for the invocation: a Manual invocation is the calling user's (any
 * `invocation_source_id` is ignored, so a user cannot pose as another); a Trigger invocation
 * names its trigger in `invocation_source_id`.
 */
export function invocationSource(source: string, sourceId: string | undefined, userId: string): { type: "Trigger" | "Manual"; id: string } {
  if (source === "Manual") return { type: "Manual", id: userId };
  if (source !== "Trigger") throw invalidArgument("invocation_source", `must be Trigger or Manual, got ${quoteValue(source)}`);
  if (!sourceId) throw invalidArgument("invocation_source_id", "is required when invocation_source is Trigger");
  return { type: "Trigger", id: sourceId };
}

/** Where outputs go: an object-store location, or a dataset (the client SDK's form). */
export type UploadDestinationRequest = { bucket: string; prefix: string } | { datasetId: string };

/**
 * Reads `upload_destination` (errors name `field`): `{bucket, prefix}` (a non-empty bucket) or the
 * client SDK's `{destination_type: "Dataset", destination_id}`. Null or absent means none.
 */
export function parseUploadDestination(json: JsonValue | undefined, field = "upload_destination"): UploadDestinationRequest | null {
  if (json === undefined || json === null) return null;
  if (typeof json !== "object" || Array.isArray(json)) throw invalidArgument(field, "must be an object");
  if ("destination_type" in json || "destination_id" in json) return datasetDestination(json, field);
  return objectStoreDestination(json.bucket, json.prefix, `${field}.`);
}

/**
 * Checks an object-store destination: a non-empty `bucket` (an empty one marks a dataset
 * destination, see storedUploadDestination) and a string `prefix`. Errors name `<fieldPrefix>bucket`.
 */
export function objectStoreDestination(bucket: JsonValue | undefined, prefix: JsonValue | undefined, fieldPrefix = ""): { bucket: string; prefix: string } {
  if (typeof bucket !== "string" || bucket === "") throw invalidArgument(`${fieldPrefix}bucket`, "must be a non-empty string");
  if (typeof prefix !== "string") throw invalidArgument(`${fieldPrefix}prefix`, "must be a string");
  return { bucket, prefix };
}

function datasetDestination(json: JsonObject, field: string): { datasetId: string } {
  if (json.destination_type !== "Dataset") {
    throw invalidArgument(`${field}.destination_type`, `must be Dataset, got ${JSON.stringify(json.destination_type ?? null).slice(0, 100)}`);
  }
  if (typeof json.destination_id !== "string" || json.destination_id === "") {
    throw invalidArgument(`${field}.destination_id`, "must be a dataset id");
  }
  return { datasetId: json.destination_id };
}

const DATASET_PREFIX = "dataset:";

/**
 * The stored (and wire) form of an upload destination is always `{bucket, prefix}`. A dataset
 * destination has no bucket of its own on this platform, so it is stored as bucket `""` and prefix
 * `dataset:<dataset_id>`; an object-store destination always has a non-empty bucket, so the two
 * never collide. Read it back with `uploadDestinationDataset`.
 */
export function storedUploadDestination(destination: UploadDestinationRequest): { bucket: string; prefix: string } {
  return "datasetId" in destination ? { bucket: "", prefix: `${DATASET_PREFIX}${destination.datasetId}` } : destination;
}

/** The dataset an invocation's outputs go to when its stored upload destination names one. */
export function uploadDestinationDataset(stored: JsonObject | null): string | undefined {
  if (!stored || stored.bucket !== "" || typeof stored.prefix !== "string") return undefined;
  return stored.prefix.startsWith(DATASET_PREFIX) ? stored.prefix.slice(DATASET_PREFIX.length) : undefined;
}
