// First: relaunches the process with the platform's V8 flags before anything else loads.
import "@hangar/shared/node-flags";
import { runServiceMain } from "@hangar/shared";
import { dataService } from "./index";
import { createS3ObjectStore } from "./object-store/s3";

runServiceMain(async (config) => {
  if (!config.s3) throw new Error("a distributed data service needs an S3-compatible store: set OBJECT_STORE_BUCKET (and OBJECT_STORE_*)");
  return dataService({ objectStore: await createS3ObjectStore(config.s3), exportRetentionMs: config.exportRetentionHours * 3_600_000 });
});
