import type { JsonObject } from "@bufbuild/protobuf";
import { invalidArgument, type ListedPage, type ListedRange } from "@hangar/shared";

// The data service's modules read the listing page types from here; they are the shared ones.
export type { ListedPage, ListedRange };

/**
 * A device. `deviceId` is the caller's name for it (unique in the org, may contain `/`);
 * `universalDeviceId` (`dv_...`) is unique everywhere and keys the device's files.
 */
export interface DeviceRecord {
  universalDeviceId: string;
  orgId: string;
  deviceId: string;
  deviceTypeId: string | null;
  metadata: JsonObject;
  customFields: JsonObject;
  tags: string[];
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** A device type; how many devices are of it is counted when read, never stored. */
export interface DeviceTypeRecord {
  deviceTypeId: string;
  orgId: string;
  name: string;
  description: string | null;
  metadata: JsonObject;
  tags: string[];
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** Whose devices a listing shows: an org's, or one device type's. */
export type DeviceScope = { orgId: string } | { deviceTypeId: string };

/** How a device type is read: with a shared lock (a device is about to use it) or an exclusive one (it is about to go). */
export type TypeLock = "share" | "update";

/** The devices of the data service's database. Found records are tracked: changes are written on commit. */
export interface DeviceRepository {
  /** A device of the org by its `device_id` (locked for update when asked, in a transaction). */
  find(orgId: string, deviceId: string, lock?: boolean): Promise<DeviceRecord | null>;
  /** A device of the org named by its `device_id` or, failing that, its `universal_device_id`. */
  findByEitherId(orgId: string, id: string): Promise<DeviceRecord | null>;
  /** Inserts a device; false, writing nothing, when the org already has one with its `device_id`. */
  insert(record: DeviceRecord): Promise<boolean>;
  remove(record: DeviceRecord): void;
  /** How many devices are of a type. */
  countOfType(deviceTypeId: string): Promise<number>;
  /** One page of an org's or a type's devices, newest first. */
  list(scope: DeviceScope, range: ListedRange): Promise<ListedPage<DeviceRecord>>;
}

/** A device type with the number of devices of it, as listings return it. */
export interface CountedDeviceType {
  type: DeviceTypeRecord;
  deviceCount: number;
}

/** The device types of the data service's database. Found records are tracked: changes are written on commit. */
export interface DeviceTypeRepository {
  /** A device type of the org; `lock` (in a transaction) keeps it from changing under a check. */
  find(orgId: string, deviceTypeId: string, lock?: TypeLock): Promise<DeviceTypeRecord | null>;
  add(record: DeviceTypeRecord): void;
  remove(record: DeviceTypeRecord): void;
  /** One page of an org's device types, newest first, each with its device count. */
  list(orgId: string, range: ListedRange): Promise<ListedPage<CountedDeviceType>>;
}

/**
 * Validates a caller-chosen `device_id`: not empty, without control characters. Any other
 * character is allowed, `/` included (clients URL-quote the id into one path segment). Its length
 * limit is the request's (proto `max_len`, enforced before any handler runs).
 */
export function checkDeviceId(deviceId: string, field = "device_id"): string {
  if (deviceId.length === 0) throw invalidArgument(field, "is required");
  checkNoControl(deviceId, field);
  return deviceId;
}

/** Validates a device type name: not blank, no control characters (its length limit is the request's, as for `device_id`). */
export function checkDeviceTypeName(name: string, field = "name"): string {
  if (name.trim().length === 0) throw invalidArgument(field, "must not be empty");
  checkNoControl(name, field);
  return name;
}

function checkNoControl(text: string, field: string): void {
  if (/[\u0000-\u001f\u007f]/.test(text)) throw invalidArgument(field, "must not contain control characters");
}
