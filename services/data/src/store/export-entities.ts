import { BigIntType, EntitySchema } from "@mikro-orm/core";
import type { ExportJobRecord } from "../domain/exports";

/** The `export_jobs` table. */
export const ExportJob = new EntitySchema<ExportJobRecord>({
  name: "ExportJob",
  tableName: "export_jobs",
  properties: {
    exportJobId: { type: "string", primary: true },
    orgId: { type: "string" },
    status: { type: "string" },
    nodeIds: { type: "string[]" },
    objectKey: { type: "string" },
    fileCount: { type: "integer" },
    totalBytes: { type: new BigIntType("string") },
    bytesUploaded: { type: new BigIntType("string") },
    error: { type: "string", nullable: true },
    created: { type: "Date" },
    createdBy: { type: "string" },
    heartbeat: { type: "Date" },
    finished: { type: "Date", nullable: true },
  },
});

/** The export schema's entities, registered with the data service. */
export const exportEntities = [ExportJob];
