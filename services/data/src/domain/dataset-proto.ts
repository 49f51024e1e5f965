import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { DatasetSchema } from "@hangar/shared/proto/data";
import type { DatasetRecord } from "./datasets";

// The wire record of a dataset, here rather than in rpc/ because the dataset-changed event carries
// it too (the dataset as a change left it), and domain/ writes that event.
/** A dataset to its wire record. */
export function datasetToProto(row: DatasetRecord): MessageInitShape<typeof DatasetSchema> {
  return {
    datasetId: row.datasetId,
    orgId: row.orgId,
    created: timestampFromDate(row.created),
    createdBy: row.createdBy,
    modified: timestampFromDate(row.modified),
    modifiedBy: row.modifiedBy,
    ...(row.name !== null ? { name: row.name } : {}),
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.deviceId !== null ? { deviceId: row.deviceId } : {}),
    metadata: row.metadata,
    customFields: row.customFields,
    tags: row.tags,
    serviceRecordVersion: BigInt(row.serviceRecordVersion),
    administrator: "Service",
    storageCtx: {},
    storageLocation: "S3",
  };
}
