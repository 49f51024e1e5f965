/** Where an export job stands. */
export type ExportStatus = "pending" | "running" | "completed" | "failed";

/**
 * An export job: the nodes asked for, where its archive goes, and its progress. Byte counts are
 * strings (exact 64-bit values), like file sizes.
 */
export interface ExportJobRecord {
  exportJobId: string;
  orgId: string;
  status: ExportStatus;
  nodeIds: string[];
  /** Key of the archive in the object store's bucket. */
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

/** What an export reads of a file or directory it was asked for. */
export interface ExportedNode {
  nodeId: string;
  fsType: "file" | "directory";
  associationId: string;
  relativePath: string;
  /** The `s3://` URI of a file's bytes; null for a directory. */
  uri: string | null;
  /** Bytes, as an exact decimal string. */
  size: string;
  modified: Date;
}

/** The export jobs of the data service's database, and the file reads an export needs. */
export interface ExportRepository {
  add(record: ExportJobRecord): void;
  /** A job of the org as stored now. */
  find(orgId: string, exportJobId: string): Promise<ExportJobRecord | null>;
  /** Changes a job that is not finished yet: a late progress write cannot undo a completion or a failure. */
  updateUnfinished(exportJobId: string, changes: Partial<ExportJobRecord>): Promise<void>;
  /** Fails an unfinished job whose builder has shown no sign of life since `before`. */
  failSilentSince(exportJobId: string, before: Date, error: string): Promise<void>;
  /** Up to `limit` finished (completed or failed) jobs that finished before `before`, oldest first. */
  finishedBefore(before: Date, limit: number): Promise<ExportJobRecord[]>;
  deleteJobs(exportJobIds: string[]): Promise<void>;
  /** The available nodes of the org among `nodeIds` (not those of a deleted owner). */
  nodes(orgId: string, nodeIds: string[]): Promise<ExportedNode[]>;
  /** The available files below a directory, sorted by path. */
  filesBelow(directory: ExportedNode): Promise<ExportedNode[]>;
}
