import path from "node:path";
import { createEmbeddedObjectStore } from "@hangar/object-store";
import type { S3Config } from "@hangar/shared";
import type { ObjectStore } from "./object-store";
import { createS3ObjectStore } from "./s3";

/** Where the hosting process keeps file bytes. */
export interface ObjectStoreConfig {
  /** An S3-compatible service; unset means the embedded store. */
  s3: S3Config | undefined;
  /** The embedded store keeps bytes, metadata and issued credentials under `<dataDir>/object-store`. */
  dataDir: string;
  /** The embedded store's S3-compatible endpoint port (`OBJECT_STORE_PORT`; 0 picks a free one). */
  port: number;
}

/** Opens the configured object store: an S3-compatible service, or the embedded one on local disk. */
export function openObjectStore(config: ObjectStoreConfig): Promise<ObjectStore> {
  if (config.s3) return createS3ObjectStore(config.s3);
  return createEmbeddedObjectStore({ dataDir: path.join(config.dataDir, "object-store"), port: config.port });
}
