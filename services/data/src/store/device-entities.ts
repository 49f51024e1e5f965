import { EntitySchema } from "@mikro-orm/core";
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampFromRow } from "@hangar/shared";
import type { DeviceRecord, DeviceTypeRecord } from "../domain/devices";

// Both tables also have a `seq` identity column that orders listings newest first; it is only
// read by the listings' SQL, so the entities leave it out.
export const Device = new EntitySchema<DeviceRecord>({
  name: "Device",
  tableName: "devices",
  properties: {
    universalDeviceId: { type: "string", primary: true },
    orgId: { type: "string" },
    deviceId: { type: "string" },
    deviceTypeId: { type: "string", nullable: true },
    metadata: { type: "json" },
    customFields: { type: "json" },
    tags: { type: "string[]" },
    created: { type: "Date" },
    createdBy: { type: "string" },
    modified: { type: "Date" },
    modifiedBy: { type: "string" },
  },
});

export const DeviceType = new EntitySchema<DeviceTypeRecord>({
  name: "DeviceType",
  tableName: "device_types",
  properties: {
    deviceTypeId: { type: "string", primary: true },
    orgId: { type: "string" },
    name: { type: "string" },
    description: { type: "string", nullable: true },
    metadata: { type: "json" },
    tags: { type: "string[]" },
    created: { type: "Date" },
    createdBy: { type: "string" },
    modified: { type: "Date" },
    modifiedBy: { type: "string" },
  },
});

export const deviceEntities = [Device, DeviceType];

/** Maps a raw `devices` row (as the pg driver returns it) to a DeviceRecord. */
export function deviceFromRow(row: Record<string, unknown>): DeviceRecord {
  return {
    universalDeviceId: row.universal_device_id as string,
    orgId: row.org_id as string,
    deviceId: row.device_id as string,
    deviceTypeId: row.device_type_id as string | null,
    metadata: row.metadata as JsonObject,
    customFields: row.custom_fields as JsonObject,
    tags: row.tags as string[],
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
  };
}

/** Maps a raw `device_types` row to a DeviceTypeRecord. */
export function deviceTypeFromRow(row: Record<string, unknown>): DeviceTypeRecord {
  return {
    deviceTypeId: row.device_type_id as string,
    orgId: row.org_id as string,
    name: row.name as string,
    description: row.description as string | null,
    metadata: row.metadata as JsonObject,
    tags: row.tags as string[],
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
  };
}
