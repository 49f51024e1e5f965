import type { JsonObject } from "@bufbuild/protobuf";
import { baseName } from "./paths";

/**
 * A file or directory within an association. 64-bit columns (size, version) are strings in memory,
 * exact and JSON-safe (earlier versions are kept as JSON snapshots).
 */
export interface FsNodeRow {
  nodeId: string;
  orgId: string;
  associationId: string;
  associationType: string;
  fsType: "file" | "directory";
  parentId: string | null;
  name: string;
  relativePath: string;
  /** `pending` while the upload that creates it is open. */
  status: "pending" | "available";
  size: string;
  uri: string | null;
  version: string;
  description: string | null;
  deviceId: string | null;
  metadata: JsonObject;
  tags: string[];
  ingestionStatus: string;
  /** The version an auto-ingesting ingestion rule of the org matched when it was uploaded (the compute service says so). */
  ingestableVersion?: string | null;
  origination: string;
  storageType: string;
  uploadId: string;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/**
 * Whether a file is meant to be ingested (FileRecord `ingestable`): a rule of its org that
 * auto-ingests matched its path when its current version was uploaded, or it has been ingested
 * (partly or fully) since. Read from the row, so a page of files costs no query more.
 */
export function isIngestable(row: Pick<FsNodeRow, "ingestableVersion" | "version" | "ingestionStatus">): boolean {
  return row.ingestableVersion === row.version || row.ingestionStatus !== "not_ingested";
}

/** A file's earlier version, kept when a newer one replaces it. */
export interface FileVersionRow {
  fileId: string;
  version: string;
  snapshot: Record<string, unknown>;
}

/** An upload transaction: a manifest of paths, open until completed or aborted. */
export interface UploadTransactionRow {
  transactionId: string;
  orgId: string;
  associationId: string;
  associationType: string;
  origination: string;
  deviceId: string | null;
  /** Every object of the transaction lives under this key prefix. */
  prefix: string;
  status: "open" | "completed" | "aborted";
  created: Date;
  createdBy: string;
  completed: Date | null;
}

/** One manifest entry of a transaction. */
export interface UploadItemRow {
  transactionId: string;
  relativePath: string;
  size: string;
  objectKey: string;
  /** The file the bytes become: a new pending file, or an existing file's next version. */
  fileId: string;
  uploaded: boolean;
}

/** What a new node must be told; everything else takes the record defaults. */
export type NewFsNode = Pick<FsNodeRow, "nodeId" | "orgId" | "associationId" | "associationType" | "fsType" | "relativePath" | "status" | "created" | "createdBy"> &
  Partial<FsNodeRow>;

/**
 * A new node with the record defaults: named after its path's last segment, version 1, no content,
 * empty metadata and tags, not ingested, no upload, modified when created.
 */
export function newFsNode(init: NewFsNode): FsNodeRow {
  return {
    parentId: null,
    name: baseName(init.relativePath),
    size: "0",
    uri: null,
    version: "1",
    description: null,
    deviceId: null,
    metadata: {},
    tags: [],
    ingestionStatus: "not_ingested",
    origination: "",
    storageType: "uploaded",
    uploadId: "NO_ID",
    modified: init.created,
    modifiedBy: init.createdBy,
    ...init,
  };
}

/**
 * A link is a file node whose `uri` is a `roboto://file/<target>?v=<version>` pointer instead of an
 * object's `s3://` URI: it stores no bytes (size 0), the client follows it to the target at that
 * version, and it reads as `fs_type: "link"` (the SDK 0.62 model). Storing it as a file node keeps
 * every path rule (conflicts, parents, listings, deletes) the same for links and files.
 */
const LINK_URI_PREFIX = "roboto://file/";

/** Whether a file node is a link. */
export function isLink(node: Pick<FsNodeRow, "uri">): boolean {
  return node.uri?.startsWith(LINK_URI_PREFIX) === true;
}

/** The pointer a link to `fileId` at `version` stores as its uri. */
export function linkUri(fileId: string, version: string): string {
  return `${LINK_URI_PREFIX}${fileId}?v=${version}`;
}
