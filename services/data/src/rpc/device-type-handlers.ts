import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, memberOrg, nullableString, planKeysetPage, type UnitOfWork } from "@hangar/shared";
import { DeviceSchema, DeviceTypeSchema, type DataService } from "@hangar/shared/proto/data";
import { listDevices } from "../domain/device-use-cases";
import {
  createDeviceType,
  deleteDeviceType,
  findDeviceType,
  getDeviceType,
  listDeviceTypes,
  updateDeviceType,
  type DeviceTypeRepositories,
} from "../domain/device-type-use-cases";
import type { CountedDeviceType } from "../domain/devices";
import { readerOf, writerOf } from "./actors";
import { deviceToProto, deviceTypeToProto, pageToProto } from "./device-mappers";

type DeviceTypeHandlers = Pick<
  ServiceImpl<typeof DataService>,
  "createDeviceType" | "getDeviceType" | "updateDeviceType" | "deleteDeviceType" | "listDevicesOfType" | "listDeviceTypes"
>;

/** What the device type operations need. */
export interface DeviceTypeHandlerDeps {
  uow: UnitOfWork<DeviceTypeRepositories>;
  /** Wakes the background cleanup after a deletion commits. */
  deleted(): void;
}

/**
 * The device type operations: create, get, update, delete (a 409 while any device is of the type;
 * the type's files go with it, removed in the background), its devices and the org's types.
 * Records carry `device_count`.
 */
export function createDeviceTypeHandlers({ uow, deleted }: DeviceTypeHandlerDeps): DeviceTypeHandlers {
  return {
    async createDeviceType(req, ctx) {
      return wire(await createDeviceType(uow, writerOf(callerOf(ctx)), req));
    },

    async getDeviceType(req, ctx) {
      return wire(await getDeviceType(uow, readerOf(callerOf(ctx)), req.deviceTypeId));
    },

    async updateDeviceType(req, ctx) {
      const change = { name: req.name, description: nullableString(req.description, "description"), metadataChangeset: req.metadataChangeset };
      return wire(await updateDeviceType(uow, readerOf(callerOf(ctx)), req.deviceTypeId, change));
    },

    async deleteDeviceType(req, ctx) {
      await deleteDeviceType(uow, readerOf(callerOf(ctx)), req.deviceTypeId);
      deleted();
      return {};
    },

    async listDevicesOfType(req, ctx) {
      const type = await findDeviceType(uow, readerOf(callerOf(ctx)), req.deviceTypeId);
      const page = planKeysetPage(req.pageSize, req.pageToken, `device-type:${type.deviceTypeId}`);
      return pageToProto(await listDevices(uow, { deviceTypeId: type.deviceTypeId }, page), page, DeviceSchema, deviceToProto);
    },

    async listDeviceTypes(req, ctx) {
      const orgId = memberOrg(callerOf(ctx), req.orgId);
      const page = planKeysetPage(req.pageSize, req.pageToken, `device-types:${orgId}`);
      return pageToProto(await listDeviceTypes(uow, orgId, page), page, DeviceTypeSchema, ({ type, deviceCount }) => deviceTypeToProto(type, deviceCount));
    },
  };
}

function wire({ type, deviceCount }: CountedDeviceType) {
  return { deviceType: deviceTypeToProto(type, deviceCount) };
}
