import { BigIntType, EntitySchema } from "@mikro-orm/core";

/** Where an export job stands. */
export type ExportStatus = "pending" | "running" | "completed" | "failed";

/**
 * An export job: the nodes asked for, where its archive goes, and its progress. Byte counts are
 * strings in memory (exact 64-bit values), like file sizes.
 */
export interface ExportJobRow {
  exportJobId: string;
  orgId: string;
  status: ExportStatus;
  nodeIds: string[];
  /** Key of the archive in the platform's bucket. */
  objectKey: string;
  fileCount: number;
  /** Sum of the exported files' sizes. */
  totalBytes: string;
  /** How many of `totalBytes` have gone into the archive so far. */
  bytesUploaded: string;
  error: string | null;
  created: Date;
  createdBy: string;
  /** Last sign of life of the builder working on the job. */
  heartbeat: Date;
  finished: Date | null;
}

/** The `export_jobs` table. */
export const ExportJob = new EntitySchema<ExportJobRow>({
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
