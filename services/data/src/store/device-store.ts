import { LockMode, UniqueConstraintViolationException } from "@mikro-orm/core";
import { listedPage, rawSql, sql, type EntityManager, type SqlFragment } from "@hangar/shared";
import type {
  CountedDeviceType,
  DeviceRecord,
  DeviceRepository,
  DeviceScope,
  DeviceTypeRecord,
  DeviceTypeRepository,
  ListedPage,
  ListedRange,
  TypeLock,
} from "../domain/devices";
import { Device, DeviceType, deviceFromRow, deviceTypeFromRow } from "./device-entities";

/** The devices repository over MikroORM. */
export class DeviceStore implements DeviceRepository {
  constructor(readonly em: EntityManager) {}

  find(orgId: string, deviceId: string, lock = false): Promise<DeviceRecord | null> {
    return this.em.findOne(Device, { orgId, deviceId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  async findByEitherId(orgId: string, id: string): Promise<DeviceRecord | null> {
    return (await this.find(orgId, id)) ?? (id.startsWith("dv_") ? this.em.findOne(Device, { orgId, universalDeviceId: id }) : null);
  }

  async insert(record: DeviceRecord): Promise<boolean> {
    try {
      await this.em.insert(Device, record);
      return true;
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) return false;
      throw error;
    }
  }

  remove(record: DeviceRecord): void {
    this.em.remove(record);
  }

  async countOfType(deviceTypeId: string): Promise<number> {
    const rows = await this.em.execute<{ n: string }[]>("select count(*) as n from devices where device_type_id = ?", [deviceTypeId]);
    return Number(rows[0]!.n);
  }

  list(scope: DeviceScope, range: ListedRange): Promise<ListedPage<DeviceRecord>> {
    const where = "orgId" in scope ? sql`org_id = ${scope.orgId}` : sql`device_type_id = ${scope.deviceTypeId}`;
    return listed(this.em, "devices", where, range, deviceFromRow);
  }
}

/** The device types repository over MikroORM. */
export class DeviceTypeStore implements DeviceTypeRepository {
  constructor(readonly em: EntityManager) {}

  find(orgId: string, deviceTypeId: string, lock?: TypeLock): Promise<DeviceTypeRecord | null> {
    const lockMode = lock === "update" ? LockMode.PESSIMISTIC_WRITE : lock === "share" ? LockMode.PESSIMISTIC_READ : undefined;
    return this.em.findOne(DeviceType, { orgId, deviceTypeId }, lockMode ? { lockMode } : {});
  }

  add(record: DeviceTypeRecord): void {
    this.em.create(DeviceType, record);
  }

  remove(record: DeviceTypeRecord): void {
    this.em.remove(record);
  }

  list(orgId: string, range: ListedRange): Promise<ListedPage<CountedDeviceType>> {
    return listed(this.em, "device_types", sql`org_id = ${orgId}`, range, (row) => ({ type: deviceTypeFromRow(row), deviceCount: Number(row.device_count) }));
  }
}

// Both tables have a `seq` identity column that orders listings newest first; only this SQL reads it.
function listed<T>(em: EntityManager, table: "devices" | "device_types", where: SqlFragment, range: ListedRange, map: (row: Record<string, unknown>) => T): Promise<ListedPage<T>> {
  const counted = table === "device_types" ? rawSql(", (select count(*) from devices d where d.device_type_id = t.device_type_id) as device_count") : rawSql("");
  return listedPage(em, { select: sql`t.*${counted}`, from: sql`${rawSql(table)} t`, where, seq: "t.seq" }, range, map);
}
