import type { JsonObject } from "@bufbuild/protobuf";
import { conflict, newId, notFound, quoteValue, type MetadataChanges, type UnitOfWork } from "@hangar/shared";
import type { Actor, OrgActor } from "./actor";
import { disposeFiles, type DisposalRepositories } from "./device-files";
import { applyMetadataChangeset, checkTags } from "./datasets";
import { checkDeviceTypeName, type CountedDeviceType, type DeviceTypeRecord, type ListedPage, type ListedRange, type TypeLock } from "./devices";
import type { DataRepositories } from "./repositories";

/** What the device type use cases reach. */
export type DeviceTypeRepositories = Pick<DataRepositories, "devices" | "deviceTypes"> & DisposalRepositories;

/** The fields of a new device type as a request gives them. */
export interface NewDeviceType {
  name: string;
  description?: string | undefined;
  metadata?: JsonObject | undefined;
  tags: readonly string[];
}

/** The changes of an update: an absent field stays; a null description clears it. */
export interface DeviceTypeUpdate {
  name?: string | undefined;
  description?: string | null | undefined;
  metadataChangeset?: MetadataChanges | undefined;
}

/** Creates a device type in the actor's org (it has no devices yet). */
export async function createDeviceType(uow: UnitOfWork<DeviceTypeRepositories>, actor: OrgActor, input: NewDeviceType): Promise<CountedDeviceType> {
  const now = new Date();
  const type: DeviceTypeRecord = {
    deviceTypeId: newId("dt"),
    orgId: actor.orgId,
    name: checkDeviceTypeName(input.name),
    description: input.description ?? null,
    metadata: input.metadata ?? {},
    tags: checkTags(input.tags),
    created: now,
    createdBy: actor.subject,
    modified: now,
    modifiedBy: actor.subject,
  };
  await uow.transaction(async (r) => r.deviceTypes.add(type));
  return { type, deviceCount: 0 };
}

/** A device type the actor can read, with its device count; a 404 otherwise. */
export async function getDeviceType(uow: UnitOfWork<DeviceTypeRepositories>, actor: Actor, deviceTypeId: string): Promise<CountedDeviceType> {
  const r = uow.repositories();
  return counted(r, await findType(r, actor, deviceTypeId));
}

/** A device type the actor can read, without its count (for its listings); a 404 otherwise. */
export function findDeviceType(uow: UnitOfWork<DeviceTypeRepositories>, actor: Actor, deviceTypeId: string): Promise<DeviceTypeRecord> {
  return findType(uow.repositories(), actor, deviceTypeId);
}

/** Applies an update, the type locked for it so two metadata changesets at once cannot each apply to the same read. */
export async function updateDeviceType(uow: UnitOfWork<DeviceTypeRepositories>, actor: Actor, deviceTypeId: string, change: DeviceTypeUpdate): Promise<CountedDeviceType> {
  const type = await uow.transaction(async (r) => {
    const record = await findType(r, actor, deviceTypeId, "update");
    if (change.name !== undefined) record.name = checkDeviceTypeName(change.name);
    if (change.description !== undefined) record.description = change.description;
    if (change.metadataChangeset) applyMetadataChangeset(record, change.metadataChangeset);
    record.modified = new Date();
    record.modifiedBy = actor.subject;
    return record;
  });
  return counted(uow.repositories(), type);
}

/**
 * Deletes a device type: a 409 while any device is of it. Its files go with it (see
 * disposeFiles), removed in the background. The type is locked first: a device taking it on
 * meanwhile waits, then finds it gone.
 */
export async function deleteDeviceType(uow: UnitOfWork<DeviceTypeRepositories>, actor: Actor, deviceTypeId: string): Promise<void> {
  await uow.transaction(async (r) => {
    const record = await findType(r, actor, deviceTypeId, "update");
    const devices = await r.devices.countOfType(record.deviceTypeId);
    if (devices > 0) throw conflict(`device type ${quoteValue(record.deviceTypeId)} is the type of ${devices} device(s); change or delete them first`);
    await disposeFiles(r, { associationId: record.deviceTypeId, associationType: "device_type", orgId: record.orgId, requestedBy: actor.subject });
    r.deviceTypes.remove(record);
  });
}

/** One page of an org's device types, newest first, each with its device count. */
export function listDeviceTypes(uow: UnitOfWork<DeviceTypeRepositories>, orgId: string, range: ListedRange): Promise<ListedPage<CountedDeviceType>> {
  return uow.repositories().deviceTypes.list(orgId, range);
}

async function findType(r: DeviceTypeRepositories, actor: Actor, deviceTypeId: string, lock?: TypeLock): Promise<DeviceTypeRecord> {
  const record = actor.orgId ? await r.deviceTypes.find(actor.orgId, deviceTypeId, lock) : null;
  if (!record) throw notFound("device type", deviceTypeId);
  return record;
}

async function counted(r: DeviceTypeRepositories, type: DeviceTypeRecord): Promise<CountedDeviceType> {
  return { type, deviceCount: await r.devices.countOfType(type.deviceTypeId) };
}
