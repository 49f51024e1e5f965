import type { ServiceImpl } from "@connectrpc/connect";
import {
  administers,
  applyCustomFieldChanges,
  callerOf,
  conflict,
  deviceUserId,
  invalidArgument,
  memberOrg,
  newId,
  notFound,
  nullableString,
  peerClients,
  planKeysetPage,
  readableOrg,
  requireOrg,
  unauthenticated,
  type Principal,
  type ServiceContext,
  quoteValue,
} from "@hangar/shared";
import { AdminService } from "@hangar/shared/proto/admin";
import { DeviceSchema, type DataService } from "@hangar/shared/proto/data";
import { applyMetadataChangeset, checkTags } from "../domain/datasets";
import { checkDeviceId } from "../domain/devices";
import type { DeviceRecord } from "../domain/devices";
import { DeviceStore, DeviceTypeStore } from "../store/device-store";
import { disposeFiles } from "./device-files";
import { deviceToProto, pageToProto } from "./device-mappers";

type DeviceHandlers = Pick<
  ServiceImpl<typeof DataService>,
  "createDevice" | "getDevice" | "updateDevice" | "deleteDevice" | "listOrgDevices" | "listDeviceTokens" | "createDeviceToken"
>;

/**
 * The device operations: create, get, update, delete (with the device's files, or moving them to
 * the org's root, and the device's tokens), the org's listing and the device's tokens. A device is
 * addressed by its `device_id` in the org the caller reads; another org's device is a 404.
 *
 * A device's tokens are API tokens of its user in the admin service (`device:<universal_device_id>`,
 * a plain member of the device's org), which the data service manages through the admin service's
 * internal device-user RPCs. Any member of the org lists them; creating one needs the owner or admin
 * role, as a token reads and writes the org's data. `deleted` is called after a deletion commits,
 * to wake the background cleanup of the device's files.
 */
export function createDeviceHandlers(context: ServiceContext, deleted: () => void): DeviceHandlers {
  const fork = () => new DeviceStore(context.orm.em.fork());
  const admin = peerClients({
    service: AdminService,
    peer: "admin",
    caller: "data",
    locate: context.runtime.locate,
    internalAuthSecret: context.runtime.internalAuthSecret,
  });
  const load = async (store: DeviceStore, caller: Principal, deviceId: string, lock = false): Promise<DeviceRecord> => {
    const orgId = readableOrg(caller);
    const row = orgId ? await store.find(orgId, deviceId, lock) : null;
    if (!row) throw notFound("device", deviceId);
    return row;
  };

  return {
    async createDevice(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = req.orgId ? memberOrg(caller, req.orgId) : requireOrg(caller);
      const deviceId = checkDeviceId(req.deviceId);
      const tags = checkTags(req.tags);
      const row = await fork().em.transactional(async (em) => {
        const store = new DeviceStore(em);
        const deviceTypeId = req.deviceTypeId === undefined ? null : await usableType(store, orgId, req.deviceTypeId);
        const now = new Date();
        const device: DeviceRecord = {
          universalDeviceId: newId("dv"),
          orgId,
          deviceId,
          deviceTypeId,
          metadata: req.metadata ?? {},
          customFields: req.customFields ?? {},
          tags,
          created: now,
          createdBy: caller.subject,
          modified: now,
          modifiedBy: caller.subject,
        };
        if (!(await store.insert(device))) throw conflict(`device_id: a device ${quoteValue(deviceId)} already exists in org ${quoteValue(orgId)}`);
        return device;
      });
      return { device: deviceToProto(row) };
    },

    async getDevice(req, ctx) {
      return { device: deviceToProto(await load(fork(), callerOf(ctx), req.deviceId)) };
    },

    async updateDevice(req, ctx) {
      const caller = callerOf(ctx);
      const deviceTypeId = nullableString(req.deviceTypeId, "device_type_id");
      return fork().em.transactional(async (em) => {
        const store = new DeviceStore(em);
        const row = await load(store, caller, req.deviceId, true);
        if (deviceTypeId !== undefined) row.deviceTypeId = deviceTypeId === null ? null : await usableType(store, row.orgId, deviceTypeId);
        if (req.metadataChangeset) applyMetadataChangeset(row, req.metadataChangeset);
        if (req.customFieldsChangeset) {
          row.customFields = applyCustomFieldChanges(row.customFields, req.customFieldsChangeset, "custom_fields_changeset");
        }
        row.modified = new Date();
        row.modifiedBy = caller.subject;
        return { device: deviceToProto(row) };
      });
    },

    async deleteDevice(req, ctx) {
      const caller = callerOf(ctx);
      await fork().em.transactional(async (em) => {
        const store = new DeviceStore(em);
        const row = await load(store, caller, req.deviceId, true);
        const association = { associationId: row.universalDeviceId, associationType: "device", orgId: row.orgId, requestedBy: caller.subject };
        await disposeFiles(em, association, req.keepConfigurations ? row.orgId : undefined);
        store.remove(row);
        // Last, while the row is locked: a failure leaves the device and its tokens in place, and a
        // token being created waits for this and then finds no device.
        await admin(row.orgId).deleteDeviceUser({ orgId: row.orgId, deviceUserId: deviceUserId(row.universalDeviceId) });
      });
      deleted();
      return {};
    },

    async listOrgDevices(req, ctx) {
      const orgId = memberOrg(callerOf(ctx), req.orgId);
      const page = planKeysetPage(req.pageSize, req.pageToken, `devices:${orgId}`);
      return pageToProto(await fork().list({ orgId }, page), page, DeviceSchema, deviceToProto);
    },

    async listDeviceTokens(req, ctx) {
      const row = await load(fork(), callerOf(ctx), req.deviceId);
      const { tokens } = await admin(row.orgId).listDeviceUserTokens({ orgId: row.orgId, deviceUserId: deviceUserId(row.universalDeviceId) });
      return { tokens };
    },

    async createDeviceToken(req, ctx) {
      const caller = callerOf(ctx);
      // The device stays locked until the token exists, so that a concurrent delete revokes it.
      return fork().em.transactional(async (em) => {
        const row = await load(new DeviceStore(em), caller, req.deviceId, true);
        if (!administers(caller, row.orgId)) throw unauthenticated(`creating a device's tokens in org ${quoteValue(row.orgId)} needs the owner or admin role`);
        const { token } = await admin(row.orgId).createDeviceUserToken({
          orgId: row.orgId,
          deviceUserId: deviceUserId(row.universalDeviceId),
          name: req.name,
          ...(req.description !== undefined ? { description: req.description } : {}),
          expiryDays: req.expiryDays,
          apiScopes: req.apiScopes,
          requestedBy: caller.subject,
          userName: row.deviceId,
        });
        return { token };
      });
    },
  };
}

/**
 * The id of a device type of the org that a device is about to use, locked (shared) until the
 * transaction ends so that the type cannot be deleted meanwhile. An unknown type is a 404.
 */
async function usableType(store: DeviceStore, orgId: string, deviceTypeId: string): Promise<string> {
  if (deviceTypeId === "") throw invalidArgument("device_type_id", "must be a device type id or null");
  const type = await new DeviceTypeStore(store.em).find(orgId, deviceTypeId, "share");
  if (!type) throw notFound("device type", deviceTypeId);
  return type.deviceTypeId;
}
