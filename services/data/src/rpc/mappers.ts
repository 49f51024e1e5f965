import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { DatasetSchema } from "@hangar/shared/proto/data";
import type { TimeValue } from "@hangar/shared/proto/common";
import type { DatasetRecord } from "../domain/datasets";
import type { TimeInput } from "../domain/time-values";

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

/**
 * A TimeValue as the time reader takes it (domain/time-values): exact nanoseconds, or the text
 * of seconds or ISO 8601; null when the request sent null (clear), undefined when it sent nothing.
 */
export function timeInputOf(value: TimeValue | undefined): TimeInput | undefined {
  switch (value?.kind.case) {
    case "nanoseconds":
    case "seconds":
    case "text":
      return value.kind.value;
    case "nullValue":
      return null;
    default:
      return undefined;
  }
}
