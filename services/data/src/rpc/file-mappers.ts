import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { CredentialsSchema, FileSchema } from "@hangar/shared/proto/data";
import type { ScopedCredentials, StoreLocation } from "../object-store/object-store";
import { isIngestable, isLink, type FsNodeRow } from "../domain/file-records";

/** A file node (current, or an earlier version's snapshot whose dates are JSON strings) to its wire record. */
export function fileToProto(row: FsNodeRow): MessageInitShape<typeof FileSchema> {
  return {
    associationId: row.associationId,
    created: timestampFromDate(new Date(row.created)),
    createdBy: row.createdBy,
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.deviceId !== null ? { deviceId: row.deviceId } : {}),
    fileId: row.nodeId,
    fsType: isLink(row) ? "link" : row.fsType,
    ingestable: isIngestable(row),
    ingestionStatus: row.ingestionStatus,
    metadata: row.metadata,
    modified: timestampFromDate(new Date(row.modified)),
    modifiedBy: row.modifiedBy,
    name: row.name,
    orgId: row.orgId,
    origination: row.origination,
    ...(row.parentId !== null ? { parentId: row.parentId } : {}),
    relativePath: row.relativePath,
    size: BigInt(row.size),
    status: row.status,
    storageType: row.storageType,
    tags: row.tags,
    uploadId: row.uploadId,
    uri: row.uri ?? "",
    version: BigInt(row.version),
  };
}

/** Scoped credentials to the wire's credentials item; `endpoint` tells S3 clients where to go. */
export function credentialsToProto(creds: ScopedCredentials, location: StoreLocation): MessageInitShape<typeof CredentialsSchema> {
  return {
    accessKeyId: creds.accessKeyId,
    secretAccessKey: creds.secretAccessKey,
    sessionToken: creds.sessionToken,
    region: creds.region,
    bucket: creds.bucket,
    requiredPrefix: creds.requiredPrefix,
    expiration: timestampFromDate(creds.expiration),
    ...(location.endpoint ? { endpoint: location.endpoint } : {}),
  };
}
