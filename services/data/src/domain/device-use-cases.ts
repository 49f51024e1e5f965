import type { JsonObject } from "@bufbuild/protobuf";
import { applyCustomFieldChanges, conflict, invalidArgument, newId, notFound, quoteValue, type CustomFieldChanges, type MetadataChanges, type UnitOfWork } from "@hangar/shared";
import type { Actor, OrgActor } from "./actor";
import { disposeFiles, type DisposalRepositories } from "./device-files";
import { applyMetadataChangeset, checkTags } from "./datasets";
import { checkDeviceId, type DeviceRecord, type DeviceScope, type ListedPage, type ListedRange } from "./devices";
import type { DataRepositories } from "./repositories";

/** What the device use cases reach. */
export type DeviceRepositories = Pick<DataRepositories, "devices" | "deviceTypes"> & DisposalRepositories;

/** The fields of a new device as a request gives them. */
export interface NewDevice {
  deviceId: string;
  /** A device type of the org (then locked against deletion until the device exists), or none. */
  deviceTypeId?: string | undefined;
  metadata?: JsonObject | undefined;
  customFields?: JsonObject | undefined;
  tags: readonly string[];
}

/** The changes of an update: an absent field stays; a null `deviceTypeId` clears the type. */
export interface DeviceUpdate {
  deviceTypeId?: string | null | undefined;
  metadataChangeset?: MetadataChanges | undefined;
  customFieldsChangeset?: CustomFieldChanges | undefined;
}

/** Creates a device in the actor's org; a 409 when the org already has one with its `device_id`. */
export async function createDevice(uow: UnitOfWork<DeviceRepositories>, actor: OrgActor, input: NewDevice): Promise<DeviceRecord> {
  const deviceId = checkDeviceId(input.deviceId);
  const tags = checkTags(input.tags);
  return uow.transaction(async (r) => {
    const deviceTypeId = input.deviceTypeId === undefined ? null : await usableType(r, actor.orgId, input.deviceTypeId);
    const now = new Date();
    const device: DeviceRecord = {
      universalDeviceId: newId("dv"),
      orgId: actor.orgId,
      deviceId,
      deviceTypeId,
      metadata: input.metadata ?? {},
      customFields: input.customFields ?? {},
      tags,
      created: now,
      createdBy: actor.subject,
      modified: now,
      modifiedBy: actor.subject,
    };
    if (!(await r.devices.insert(device))) throw conflict(`device_id: a device ${quoteValue(deviceId)} already exists in org ${quoteValue(actor.orgId)}`);
    return device;
  });
}

/** A device the actor can read, by its `device_id`; a 404 otherwise. */
export function getDevice(uow: UnitOfWork<DeviceRepositories>, actor: Actor, deviceId: string): Promise<DeviceRecord> {
  return findDevice(uow.repositories(), actor, deviceId);
}

/** Applies an update to a device, locked for the transaction so concurrent changesets cannot each apply to the same read. */
export function updateDevice(uow: UnitOfWork<DeviceRepositories>, actor: Actor, deviceId: string, change: DeviceUpdate): Promise<DeviceRecord> {
  return uow.transaction(async (r) => {
    const record = await findDevice(r, actor, deviceId, true);
    if (change.deviceTypeId !== undefined) record.deviceTypeId = change.deviceTypeId === null ? null : await usableType(r, record.orgId, change.deviceTypeId);
    if (change.metadataChangeset) applyMetadataChangeset(record, change.metadataChangeset);
    if (change.customFieldsChangeset) {
      record.customFields = applyCustomFieldChanges(record.customFields, change.customFieldsChangeset, "custom_fields_changeset");
    }
    record.modified = new Date();
    record.modifiedBy = actor.subject;
    return record;
  });
}

/**
 * Deletes a device with its files (see disposeFiles; with `keepConfigurations` the available ones
 * move to the root of its org first) and then, through `removeUser`, the device's user and tokens
 * in the admin service. That comes last, while the device is locked: a failure leaves the device
 * and its tokens in place, and a token being created waits for this and then finds no device.
 */
export async function deleteDevice(
  uow: UnitOfWork<DeviceRepositories>,
  actor: Actor,
  deviceId: string,
  options: { keepConfigurations: boolean; removeUser: (device: DeviceRecord) => Promise<void> },
): Promise<void> {
  await uow.transaction(async (r) => {
    const record = await findDevice(r, actor, deviceId, true);
    const association = { associationId: record.universalDeviceId, associationType: "device", orgId: record.orgId, requestedBy: actor.subject };
    await disposeFiles(r, association, options.keepConfigurations ? record.orgId : undefined);
    r.devices.remove(record);
    await options.removeUser(record);
  });
}

/**
 * Runs `issue` (which creates a token of the device in the admin service) with the device locked
 * until the token exists, so that a concurrent delete of the device revokes it.
 */
export function issueDeviceToken<T>(uow: UnitOfWork<DeviceRepositories>, actor: Actor, deviceId: string, issue: (device: DeviceRecord) => Promise<T>): Promise<T> {
  return uow.transaction(async (r) => issue(await findDevice(r, actor, deviceId, true)));
}

/** One page of an org's or a device type's devices, newest first. */
export function listDevices(uow: UnitOfWork<DeviceRepositories>, scope: DeviceScope, range: ListedRange): Promise<ListedPage<DeviceRecord>> {
  return uow.repositories().devices.list(scope, range);
}

async function findDevice(r: DeviceRepositories, actor: Actor, deviceId: string, lock = false): Promise<DeviceRecord> {
  const record = actor.orgId ? await r.devices.find(actor.orgId, deviceId, lock) : null;
  if (!record) throw notFound("device", deviceId);
  return record;
}

/**
 * The id of a device type of the org that a device is about to use, locked (shared) until the
 * transaction ends so that the type cannot be deleted meanwhile. An unknown type is a 404.
 */
async function usableType(r: DeviceRepositories, orgId: string, deviceTypeId: string): Promise<string> {
  if (deviceTypeId === "") throw invalidArgument("device_type_id", "must be a device type id or null");
  const type = await r.deviceTypes.find(orgId, deviceTypeId, "share");
  if (!type) throw notFound("device type", deviceTypeId);
  return type.deviceTypeId;
}
