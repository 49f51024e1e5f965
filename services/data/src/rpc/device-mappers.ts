import type { DescMessage, MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { fitPage, type KeysetPage } from "@hangar/shared";
import type { DeviceSchema, DeviceTypeSchema } from "@hangar/shared/proto/data";
import type { DeviceRecord, DeviceTypeRecord, ListedPage } from "../domain/devices";

/** A device row to its wire record. */
export function deviceToProto(row: DeviceRecord): MessageInitShape<typeof DeviceSchema> {
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
export function deviceTypeToProto(row: DeviceTypeRecord, deviceCount: number): MessageInitShape<typeof DeviceTypeSchema> {
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

/**
 * A listed page to the wire's page: `items` (those that fit the response, see fitPage),
 * `next_token` (after the last item served; absent on the last page) and `total_count`.
 */
export function pageToProto<T, Desc extends DescMessage>(
  listed: ListedPage<T>,
  page: KeysetPage,
  schema: Desc,
  map: (row: T) => MessageInitShape<Desc>,
): { items: MessageInitShape<Desc>[]; totalCount: bigint; nextToken?: string } {
  const items = fitPage(schema, listed.rows.map(map));
  const nextToken = page.nextToken(listed.keys[items.length - 1], listed.hasMore || items.length < listed.rows.length);
  return { items, totalCount: BigInt(listed.total), ...(nextToken ? { nextToken } : {}) };
}
