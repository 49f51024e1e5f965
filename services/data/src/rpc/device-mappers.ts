import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { KeysetPage } from "@hangar/shared";
import type { DeviceSchema, DeviceTypeSchema } from "@hangar/shared/proto/data";
import type { DeviceRow, DeviceTypeRow } from "../store/device-entities";
import type { ListedPage } from "../store/device-store";

/** A device row to its wire record. */
export function deviceToProto(row: DeviceRow): MessageInitShape<typeof DeviceSchema> {
  return {
    deviceId: row.deviceId,
    universalDeviceId: row.universalDeviceId,
    orgId: row.orgId,
    ...(row.deviceTypeId !== null ? { deviceTypeId: row.deviceTypeId } : {}),
    metadata: row.metadata,
    customFields: row.customFields,
    tags: row.tags,
    created: timestampFromDate(row.created),
    createdBy: row.createdBy,
    modified: timestampFromDate(row.modified),
    modifiedBy: row.modifiedBy,
  };
}

/** A device type row and its device count to the wire record. */
export function deviceTypeToProto(row: DeviceTypeRow, deviceCount: number): MessageInitShape<typeof DeviceTypeSchema> {
  return {
    deviceTypeId: row.deviceTypeId,
    orgId: row.orgId,
    name: row.name,
    ...(row.description !== null ? { description: row.description } : {}),
    deviceCount: BigInt(deviceCount),
    metadata: row.metadata,
    tags: row.tags,
    created: timestampFromDate(row.created),
    createdBy: row.createdBy,
    modified: timestampFromDate(row.modified),
    modifiedBy: row.modifiedBy,
  };
}

/** A listed page to the wire's page: `items`, `next_token` (absent on the last page) and `total_count`. */
export function pageToProto<T, R>(listed: ListedPage<T>, page: KeysetPage, map: (row: T) => R): { items: R[]; totalCount: bigint; nextToken?: string } {
  const nextToken = page.nextToken(listed.lastKey, listed.hasMore);
  return { items: listed.rows.map(map), totalCount: BigInt(listed.total), ...(nextToken ? { nextToken } : {}) };
}
