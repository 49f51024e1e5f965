#!/usr/bin/env node
// First: relaunches the process with the platform's V8 flags before anything else loads.
import "@hangar/shared/node-flags";
import { createLogger, exitOnStartupFailure, loadObjectStoreServerConfig } from "@hangar/shared";
import { createEmbeddedObjectStore } from "./embedded-object-store";

/**
 * The object store as a process of its own (`node services/object-store/dist/main.js`), for a
 * distributed deployment without an S3 service of its own: the data service reaches it with the
 * root credential as any S3-compatible store, minting prefix-scoped session credentials through
 * its STS AssumeRole. Configured from the environment (loadObjectStoreServerConfig); stops on SIGTERM.
 */
async function main(): Promise<void> {
  const config = loadObjectStoreServerConfig();
  const logger = createLogger("hangar-object-store", process.env.LOG_LEVEL || "info");
  const store = await createEmbeddedObjectStore({ ...config, logger });
  logger.info({ url: store.url, bucket: config.bucket, dataDir: config.dataDir }, "object store listening");
  process.once("SIGTERM", () => void store.close().then(() => process.exit(0)));
}

main().catch(exitOnStartupFailure("object store"));
