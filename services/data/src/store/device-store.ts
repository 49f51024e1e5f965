import { LockMode, UniqueConstraintViolationException } from "@mikro-orm/core";
import { rawSql, sql, type EntityManager, type KeysetPage, type SqlFragment } from "@hangar/shared";
import { Device, DeviceType, deviceFromRow, deviceTypeFromRow, type DeviceRow, type DeviceTypeRow } from "./device-entities";

/** One page of a newest-first listing: the rows with their keys, whether more follow, and how many there are. */
export interface ListedPage<T> {
  rows: T[];
  /** Each row's key, in order, so a page cut short (see fitPage) can continue after any row. */
  keys: number[];
  hasMore: boolean;
  total: number;
}

/** Whose devices a listing shows: an org's, or one device type's. */
export type DeviceScope = { orgId: string } | { deviceTypeId: string };

/** How a device type is read: with a shared lock (a device is about to use it) or an exclusive one (it is about to go). */
export type TypeLock = "share" | "update";

/** Reads and writes of devices and device types; the RPC layer never touches the ORM directly. */
export class DeviceStore {
  constructor(readonly em: EntityManager) {}

  /** A device of the org by its `device_id`, tracked for changes (locked for update when asked, in a transaction). */
  findDevice(orgId: string, deviceId: string, lock = false): Promise<DeviceRow | null> {
    return this.em.findOne(Device, { orgId, deviceId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  /** A device of the org named by its `device_id` or, failing that, its `universal_device_id`. */
  async findByEitherId(orgId: string, id: string): Promise<DeviceRow | null> {
    return (await this.findDevice(orgId, id)) ?? (id.startsWith("dv_") ? this.em.findOne(Device, { orgId, universalDeviceId: id }) : null);
  }

  /** Inserts a device; false, writing nothing, when the org already has one with its `device_id`. */
  async insertDevice(row: DeviceRow): Promise<boolean> {
    try {
      await this.em.insert(Device, row);
      return true;
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) return false;
      throw error;
    }
  }

  /** A device type of the org, tracked for changes; `lock` (in a transaction) keeps it from changing under a check. */
  findType(orgId: string, deviceTypeId: string, lock?: TypeLock): Promise<DeviceTypeRow | null> {
    const lockMode = lock === "update" ? LockMode.PESSIMISTIC_WRITE : lock === "share" ? LockMode.PESSIMISTIC_READ : undefined;
    return this.em.findOne(DeviceType, { orgId, deviceTypeId }, lockMode ? { lockMode } : {});
  }

  addType(row: DeviceTypeRow): void {
    this.em.create(DeviceType, row);
  }

  remove(row: DeviceRow | DeviceTypeRow): void {
    this.em.remove(row);
  }

  /** How many devices are of a type. */
  async deviceCount(deviceTypeId: string): Promise<number> {
    const rows = await this.em.execute<{ n: string }[]>("select count(*) as n from devices where device_type_id = ?", [deviceTypeId]);
    return Number(rows[0]!.n);
  }

  /** One page of an org's or a type's devices, newest first. */
  async listDevices(scope: DeviceScope, page: Pick<KeysetPage, "limit" | "before">): Promise<ListedPage<DeviceRow>> {
    const where = "orgId" in scope ? sql`org_id = ${scope.orgId}` : sql`device_type_id = ${scope.deviceTypeId}`;
    return this.listed("devices", where, page, deviceFromRow);
  }

  /** One page of an org's device types, newest first, each with its device count. */
  async listTypes(orgId: string, page: Pick<KeysetPage, "limit" | "before">): Promise<ListedPage<{ type: DeviceTypeRow; deviceCount: number }>> {
    return this.listed("device_types", sql`org_id = ${orgId}`, page, (row) => ({ type: deviceTypeFromRow(row), deviceCount: Number(row.device_count) }));
  }

  flush(): Promise<void> {
    return this.em.flush();
  }

  private async listed<T>(table: "devices" | "device_types", where: SqlFragment, page: Pick<KeysetPage, "limit" | "before">, map: (row: Record<string, unknown>) => T): Promise<ListedPage<T>> {
    const after = page.before === undefined ? rawSql("true") : sql`seq < ${page.before}`;
    const counted = table === "device_types" ? rawSql(", (select count(*) from devices d where d.device_type_id = t.device_type_id) as device_count") : rawSql("");
    const list = sql`select t.*${counted} from ${rawSql(table)} t where ${where} and ${after} order by seq desc limit ${page.limit + 1}`;
    const count = sql`select count(*) as total from ${rawSql(table)} where ${where}`;
    const [rows, counts] = await Promise.all([
      this.em.execute(list.sql, [...list.params]),
      this.em.execute<{ total: string }[]>(count.sql, [...count.params]),
    ]);
    const served = rows.slice(0, page.limit);
    return { rows: served.map(map), keys: served.map((row) => Number(row.seq)), hasMore: rows.length > page.limit, total: Number(counts[0]!.total) };
  }
}
