import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { DirectorySchema } from "@hangar/shared/proto/data";
import type { FsNodeRow } from "../domain/file-records";

/** A directory node to its wire record. */
export function directoryToProto(row: FsNodeRow): MessageInitShape<typeof DirectorySchema> {
  return {
    associationId: row.associationId,
    created: timestampFromDate(new Date(row.created)),
    createdBy: row.createdBy,
    ...(row.description !== null ? { description: row.description } : {}),
    directoryId: row.nodeId,
    fsType: row.fsType,
    metadata: row.metadata,
    modified: timestampFromDate(new Date(row.modified)),
    modifiedBy: row.modifiedBy,
    name: row.name,
    orgId: row.orgId,
    origination: row.origination,
    ...(row.parentId !== null ? { parentId: row.parentId } : {}),
    relativePath: row.relativePath,
    status: row.status,
    storageType: row.storageType,
    tags: row.tags,
    uploadId: row.uploadId,
  };
}
