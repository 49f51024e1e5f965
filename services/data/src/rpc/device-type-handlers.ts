import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, conflict, memberOrg, newId, notFound, nullableString, planKeysetPage, readableOrg, requireOrg, type Principal, type ServiceContext, quoteValue } from "@hangar/shared";
import { DeviceSchema, DeviceTypeSchema, type DataService } from "@hangar/shared/proto/data";
import { applyMetadataChangeset, checkTags } from "../domain/datasets";
import { checkDeviceTypeName, type TypeLock } from "../domain/devices";
import type { DeviceTypeRecord } from "../domain/devices";
import { DeviceStore, DeviceTypeStore } from "../store/device-store";
import { disposeFiles } from "./device-files";
import { deviceToProto, deviceTypeToProto, pageToProto } from "./device-mappers";

type DeviceTypeHandlers = Pick<
  ServiceImpl<typeof DataService>,
  "createDeviceType" | "getDeviceType" | "updateDeviceType" | "deleteDeviceType" | "listDevicesOfType" | "listDeviceTypes"
>;

/**
 * The device type operations: create, get, update, delete (a 409 while any device is of the type;
 * the type's files go with it, removed in the background after `deleted` wakes the cleanup), its
 * devices and the org's types. Records carry `device_count`.
 */
export function createDeviceTypeHandlers(context: ServiceContext, deleted: () => void): DeviceTypeHandlers {
  const fork = () => new DeviceStore(context.orm.em.fork());
  const load = async (store: DeviceStore, caller: Principal, deviceTypeId: string, lock?: TypeLock): Promise<DeviceTypeRecord> => {
    const orgId = readableOrg(caller);
    const row = orgId ? await new DeviceTypeStore(store.em).find(orgId, deviceTypeId, lock) : null;
    if (!row) throw notFound("device type", deviceTypeId);
    return row;
  };
  const withCount = async (store: DeviceStore, row: DeviceTypeRecord) => ({ deviceType: deviceTypeToProto(row, await store.countOfType(row.deviceTypeId)) });

  return {
    async createDeviceType(req, ctx) {
      const caller = callerOf(ctx);
      const now = new Date();
      const row: DeviceTypeRecord = {
        deviceTypeId: newId("dt"),
        orgId: requireOrg(caller),
        name: checkDeviceTypeName(req.name),
        description: req.description ?? null,
        metadata: req.metadata ?? {},
        tags: checkTags(req.tags),
        created: now,
        createdBy: caller.subject,
        modified: now,
        modifiedBy: caller.subject,
      };
      const store = fork();
      new DeviceTypeStore(store.em).add(row);
      await store.em.flush();
      return { deviceType: deviceTypeToProto(row, 0) };
    },

    async getDeviceType(req, ctx) {
      const store = fork();
      return withCount(store, await load(store, callerOf(ctx), req.deviceTypeId));
    },

    async updateDeviceType(req, ctx) {
      const caller = callerOf(ctx);
      // Locked for the update, so two metadata changesets at once cannot each apply to the same read.
      const row = await fork().em.transactional(async (em) => {
        const row = await load(new DeviceStore(em), caller, req.deviceTypeId, "update");
        if (req.name !== undefined) row.name = checkDeviceTypeName(req.name);
        const description = nullableString(req.description, "description");
        if (description !== undefined) row.description = description;
        if (req.metadataChangeset) applyMetadataChangeset(row, req.metadataChangeset);
        row.modified = new Date();
        row.modifiedBy = caller.subject;
        return row;
      });
      return withCount(fork(), row);
    },

    async deleteDeviceType(req, ctx) {
      const caller = callerOf(ctx);
      await fork().em.transactional(async (em) => {
        const store = new DeviceStore(em);
        // Locked first: a device taking the type on meanwhile waits, then finds it gone.
        const row = await load(store, caller, req.deviceTypeId, "update");
        const devices = await store.countOfType(row.deviceTypeId);
        if (devices > 0) throw conflict(`device type ${quoteValue(row.deviceTypeId)} is the type of ${devices} device(s); change or delete them first`);
        await disposeFiles(em, { associationId: row.deviceTypeId, associationType: "device_type", orgId: row.orgId, requestedBy: caller.subject });
        new DeviceTypeStore(em).remove(row);
      });
      deleted();
      return {};
    },

    async listDevicesOfType(req, ctx) {
      const store = fork();
      const row = await load(store, callerOf(ctx), req.deviceTypeId);
      const page = planKeysetPage(req.pageSize, req.pageToken, `device-type:${row.deviceTypeId}`);
      return pageToProto(await store.list({ deviceTypeId: row.deviceTypeId }, page), page, DeviceSchema, deviceToProto);
    },

    async listDeviceTypes(req, ctx) {
      const orgId = memberOrg(callerOf(ctx), req.orgId);
      const page = planKeysetPage(req.pageSize, req.pageToken, `device-types:${orgId}`);
      return pageToProto(await new DeviceTypeStore(context.orm.em.fork()).list(orgId, page), page, DeviceTypeSchema, ({ type, deviceCount }) => deviceTypeToProto(type, deviceCount));
    },
  };
}
