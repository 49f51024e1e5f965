import { BigIntType, EntitySchema } from "@mikro-orm/core";
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampFromRow } from "@hangar/shared";
import type { FileVersionRow, FsNodeRow, UploadItemRow, UploadTransactionRow } from "../domain/file-records";

// The record is declared in domain/; the stores of exports and deleted associations read it from here.
export type { FsNodeRow } from "../domain/file-records";

export const FsNode = new EntitySchema<FsNodeRow>({
  name: "FsNode",
  tableName: "fs_nodes",
  properties: {
    nodeId: { type: "string", primary: true },
    orgId: { type: "string" },
    associationId: { type: "string" },
    associationType: { type: "string" },
    fsType: { type: "string" },
    parentId: { type: "string", nullable: true },
    name: { type: "string" },
    relativePath: { type: "string" },
    status: { type: "string" },
    size: { type: new BigIntType("string") },
    uri: { type: "string", nullable: true },
    version: { type: new BigIntType("string") },
    description: { type: "string", nullable: true },
    deviceId: { type: "string", nullable: true },
    metadata: { type: "json" },
    tags: { type: "string[]" },
    ingestionStatus: { type: "string" },
    ingestableVersion: { type: new BigIntType("string"), nullable: true },
    origination: { type: "string" },
    storageType: { type: "string" },
    uploadId: { type: "string" },
    created: { type: "Date" },
    createdBy: { type: "string" },
    modified: { type: "Date" },
    modifiedBy: { type: "string" },
  },
});

export const FileVersion = new EntitySchema<FileVersionRow>({
  name: "FileVersion",
  tableName: "file_versions",
  properties: {
    fileId: { type: "string", primary: true },
    version: { type: new BigIntType("string"), primary: true },
    snapshot: { type: "json" },
  },
});

export const UploadTransaction = new EntitySchema<UploadTransactionRow>({
  name: "UploadTransaction",
  tableName: "upload_transactions",
  properties: {
    transactionId: { type: "string", primary: true },
    orgId: { type: "string" },
    associationId: { type: "string" },
    associationType: { type: "string" },
    origination: { type: "string" },
    deviceId: { type: "string", nullable: true },
    prefix: { type: "string" },
    status: { type: "string" },
    created: { type: "Date" },
    createdBy: { type: "string" },
    completed: { type: "Date", nullable: true },
  },
});

export const UploadItem = new EntitySchema<UploadItemRow>({
  name: "UploadItem",
  tableName: "upload_items",
  properties: {
    transactionId: { type: "string", primary: true },
    relativePath: { type: "string", primary: true },
    size: { type: new BigIntType("string") },
    objectKey: { type: "string" },
    fileId: { type: "string" },
    uploaded: { type: "boolean" },
  },
});

export const fileEntities = [FsNode, FileVersion, UploadTransaction, UploadItem];

/** Maps a raw `fs_nodes` row (as the pg driver returns it) to an FsNodeRow, for reads that skip the ORM. */
export function fsNodeFromRow(row: Record<string, unknown>): FsNodeRow {
  return {
    nodeId: row.node_id as string,
    orgId: row.org_id as string,
    associationId: row.association_id as string,
    associationType: row.association_type as string,
    fsType: row.fs_type as FsNodeRow["fsType"],
    parentId: row.parent_id as string | null,
    name: row.name as string,
    relativePath: row.relative_path as string,
    status: row.status as FsNodeRow["status"],
    size: String(row.size),
    uri: row.uri as string | null,
    version: String(row.version),
    description: row.description as string | null,
    deviceId: row.device_id as string | null,
    metadata: row.metadata as JsonObject,
    tags: row.tags as string[],
    ingestionStatus: row.ingestion_status as string,
    ingestableVersion: row.ingestable_version === null || row.ingestable_version === undefined ? null : String(row.ingestable_version),
    origination: row.origination as string,
    storageType: row.storage_type as string,
    uploadId: row.upload_id as string,
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
  };
}

/** An FsNodeRow as an `fs_nodes` row (the columns by name), for statements that read rows from JSON. */
export function fsNodeToRow(node: FsNodeRow): Record<string, unknown> {
  return {
    node_id: node.nodeId,
    org_id: node.orgId,
    association_id: node.associationId,
    association_type: node.associationType,
    fs_type: node.fsType,
    parent_id: node.parentId,
    name: node.name,
    relative_path: node.relativePath,
    status: node.status,
    size: node.size,
    uri: node.uri,
    version: node.version,
    description: node.description,
    device_id: node.deviceId,
    metadata: node.metadata,
    tags: node.tags,
    ingestion_status: node.ingestionStatus,
    ingestable_version: node.ingestableVersion ?? null,
    origination: node.origination,
    storage_type: node.storageType,
    upload_id: node.uploadId,
    created: node.created,
    created_by: node.createdBy,
    modified: node.modified,
    modified_by: node.modifiedBy,
  };
}
