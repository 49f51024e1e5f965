import type { ServiceImpl } from "@connectrpc/connect";
import {
  administers,
  callerOf,
  deviceUserId,
  memberOrg,
  nullableString,
  peerClients,
  planKeysetPage,
  requireOrg,
  unauthenticated,
  type ServiceRuntime,
  type UnitOfWork,
  quoteValue,
} from "@hangar/shared";
import { AdminService } from "@hangar/shared/proto/admin";
import { DeviceSchema, type DataService } from "@hangar/shared/proto/data";
import { createDevice, deleteDevice, getDevice, issueDeviceToken, listDevices, updateDevice, type DeviceRepositories } from "../domain/device-use-cases";
import { readerOf } from "./actors";
import { deviceToProto, pageToProto } from "./device-mappers";

type DeviceHandlers = Pick<
  ServiceImpl<typeof DataService>,
  "createDevice" | "getDevice" | "updateDevice" | "deleteDevice" | "listOrgDevices" | "listDeviceTokens" | "createDeviceToken"
>;

/** What the device operations need. */
export interface DeviceHandlerDeps {
  uow: UnitOfWork<DeviceRepositories>;
  /** Locates the admin service, whose internal device-user RPCs hold the devices' tokens. */
  runtime: Pick<ServiceRuntime, "locate" | "internalAuthSecret">;
  /** Wakes the background cleanup after a deletion commits. */
  deleted(): void;
}

/**
 * The device operations: create, get, update, delete (with the device's files, or moving them to
 * the org's root, and the device's tokens), the org's listing and the device's tokens. A device is
 * addressed by its `device_id` in the org the caller reads; another org's device is a 404.
 *
 * A device's tokens are API tokens of its user in the admin service (`device:<universal_device_id>`,
 * a plain member of the device's org), which the data service manages through the admin service's
 * internal device-user RPCs. Any member of the org lists them; creating one needs the owner or admin
 * role, as a token reads and writes the org's data.
 */
export function createDeviceHandlers({ uow, runtime, deleted }: DeviceHandlerDeps): DeviceHandlers {
  const admin = peerClients({ service: AdminService, peer: "admin", caller: "data", locate: runtime.locate, internalAuthSecret: runtime.internalAuthSecret });

  return {
    async createDevice(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = req.orgId ? memberOrg(caller, req.orgId) : requireOrg(caller);
      const device = await createDevice(uow, { orgId, subject: caller.subject }, req);
      return { device: deviceToProto(device) };
    },

    async getDevice(req, ctx) {
      return { device: deviceToProto(await getDevice(uow, readerOf(callerOf(ctx)), req.deviceId)) };
    },

    async updateDevice(req, ctx) {
      const change = { deviceTypeId: nullableString(req.deviceTypeId, "device_type_id"), metadataChangeset: req.metadataChangeset, customFieldsChangeset: req.customFieldsChangeset };
      return { device: deviceToProto(await updateDevice(uow, readerOf(callerOf(ctx)), req.deviceId, change)) };
    },

    async deleteDevice(req, ctx) {
      await deleteDevice(uow, readerOf(callerOf(ctx)), req.deviceId, {
        keepConfigurations: req.keepConfigurations,
        removeUser: async (device) => void (await admin(device.orgId).deleteDeviceUser({ orgId: device.orgId, deviceUserId: deviceUserId(device.universalDeviceId) })),
      });
      deleted();
      return {};
    },

    async listOrgDevices(req, ctx) {
      const orgId = memberOrg(callerOf(ctx), req.orgId);
      const page = planKeysetPage(req.pageSize, req.pageToken, `devices:${orgId}`);
      return pageToProto(await listDevices(uow, { orgId }, page), page, DeviceSchema, deviceToProto);
    },

    async listDeviceTokens(req, ctx) {
      const device = await getDevice(uow, readerOf(callerOf(ctx)), req.deviceId);
      const { tokens } = await admin(device.orgId).listDeviceUserTokens({ orgId: device.orgId, deviceUserId: deviceUserId(device.universalDeviceId) });
      return { tokens };
    },

    async createDeviceToken(req, ctx) {
      const caller = callerOf(ctx);
      return issueDeviceToken(uow, readerOf(caller), req.deviceId, async (device) => {
        if (!administers(caller, device.orgId)) throw unauthenticated(`creating a device's tokens in org ${quoteValue(device.orgId)} needs the owner or admin role`);
        const { token } = await admin(device.orgId).createDeviceUserToken({
          orgId: device.orgId,
          deviceUserId: deviceUserId(device.universalDeviceId),
          name: req.name,
          ...(req.description !== undefined ? { description: req.description } : {}),
          expiryDays: req.expiryDays,
          apiScopes: req.apiScopes,
          requestedBy: caller.subject,
          userName: device.deviceId,
        });
        return { token };
      });
    },
  };
}
