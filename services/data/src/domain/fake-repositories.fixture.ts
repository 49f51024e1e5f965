import type { NewEvent } from "@hangar/shared";
import type { AssociationDeletionRepository } from "./association-cleanup";
import type { DatasetRecord, DatasetRelationRecord, DatasetRepository } from "./datasets";
import type { DeviceRecord, DeviceRepository, DeviceTypeRecord, DeviceTypeRepository } from "./devices";
import type { FileRepository, TreeRepository } from "./file-repositories";
import type { DataRepositories } from "./repositories";

/**
 * In-memory repositories for the domain's unit specs: records kept by reference (so a use case's
 * changes to a found record are "written", as the ORM's tracking writes them on commit) and every
 * call that matters to a rule logged in order. Only what the specs use is implemented.
 */
export function fakeRepositories() {
  const calls: string[] = [];
  const datasets = new Map<string, DatasetRecord>();
  const relations: DatasetRelationRecord[] = [];
  const devices = new Map<string, DeviceRecord>();
  const types = new Map<string, DeviceTypeRecord>();
  const events: NewEvent[] = [];
  const unused = () => Promise.reject(new Error("not used by these specs"));
  const datasetRepository: DatasetRepository = {
    find: async (orgId, id, lock) => (calls.push(`datasets.find ${id}${lock ? " locked" : ""}`), inOrg(datasets.get(id), orgId)),
    read: async (orgId, id) => inOrg(datasets.get(id), orgId),
    existingIds: unused,
    insert: async (record) => void (calls.push(`datasets.insert ${record.datasetId}`), datasets.set(record.datasetId, record)),
    remove: (record) => void (calls.push(`datasets.remove ${record.datasetId}`), datasets.delete(record.datasetId)),
    relations: async (id) => relations.filter((r) => r.datasetId === id),
    addRelation: (record) => void (calls.push(`relations.add ${record.subject} ${record.relation}`), relations.push(record)),
    removeRelation: async (record) => {
      calls.push(`relations.remove ${record.subject} ${record.relation}`);
      const i = relations.findIndex((r) => r.datasetId === record.datasetId && r.subject === record.subject && r.relation === record.relation);
      if (i >= 0) relations.splice(i, 1);
    },
    removeRelations: async (id) => void calls.push(`relations.removeAll ${id}`),
    search: unused,
    firstMatch: async (orgId) => [...datasets.values()].find((d) => d.orgId === orgId) ?? null,
    lockQuery: async (orgId, query) => void calls.push(`datasets.lockQuery ${orgId} ${query}`),
    metadataKeys: unused,
  };
  const deviceRepository: DeviceRepository = {
    find: async (orgId, id, lock) => (calls.push(`devices.find ${id}${lock ? " locked" : ""}`), inOrg([...devices.values()].find((d) => d.deviceId === id), orgId)),
    findByEitherId: unused,
    insert: async (record) => {
      const taken = [...devices.values()].some((d) => d.orgId === record.orgId && d.deviceId === record.deviceId);
      if (!taken) devices.set(record.universalDeviceId, record);
      return !taken;
    },
    remove: (record) => void (calls.push(`devices.remove ${record.deviceId}`), devices.delete(record.universalDeviceId)),
    countOfType: async (typeId) => [...devices.values()].filter((d) => d.deviceTypeId === typeId).length,
    list: unused,
  };
  const typeRepository: DeviceTypeRepository = {
    find: async (orgId, id, lock) => (calls.push(`deviceTypes.find ${id}${lock ? ` ${lock}` : ""}`), inOrg(types.get(id), orgId)),
    add: (record) => void types.set(record.deviceTypeId, record),
    remove: (record) => void (calls.push(`deviceTypes.remove ${record.deviceTypeId}`), types.delete(record.deviceTypeId)),
    list: unused,
  };
  const deletions: AssociationDeletionRepository = {
    retire: async (a) => void calls.push(`retire ${a.associationType} ${a.associationId}`),
    claim: unused,
    nodeBatch: unused,
    deleteNodes: unused,
    transactionBatch: unused,
    deleteTransactions: unused,
    unreferencedKeys: unused,
    finish: unused,
  };
  // What disposing of a device's files uses: the org's path lock and the move to its root.
  const files = { lockAssociation: async (id: string) => void calls.push(`lock ${id}`) } as Partial<FileRepository> as FileRepository;
  const tree = {
    moveAssociation: async (from: string, to: { associationId: string }) => (calls.push(`move ${from} ${to.associationId}`), { clash: null }),
  } as Partial<TreeRepository> as TreeRepository;
  const repositories: Omit<DataRepositories, "exports" | "uploads" | "fileSearch" | "owners" | "comments" | "topics" | "timelines" | "topicReads" | "sessions" | "robotEvents" | "eventTargets" | "collections" | "datasetSummaries" | "savedQueries" | "queryResults" | "metrics" | "tags"> = {
    files,
    tree,
    datasets: datasetRepository,
    devices: deviceRepository,
    deviceTypes: typeRepository,
    associationDeletions: deletions,
    events: { record: (event) => void (calls.push(`event ${event.topic} ${event.key}`), events.push(event)) },
  };
  return { repositories, calls, datasets, relations, devices, types, events };
}

function inOrg<T extends { orgId: string }>(record: T | undefined, orgId: string): T | null {
  return record && record.orgId === orgId ? record : null;
}

/** A dataset record of `orgId` with every field set. */
export function datasetRecord(datasetId: string, orgId: string, changes: Partial<DatasetRecord> = {}): DatasetRecord {
  const at = new Date("2026-01-01T00:00:00Z");
  return {
    datasetId,
    orgId,
    name: "run",
    description: "first run",
    deviceId: null,
    metadata: { site: "north" },
    customFields: {},
    tags: ["a"],
    created: at,
    createdBy: "u_owner",
    modified: at,
    modifiedBy: "u_owner",
    serviceRecordVersion: 1,
    ...changes,
  };
}

/** A device record of `orgId` with every field set. */
export function deviceRecord(deviceId: string, orgId: string, changes: Partial<DeviceRecord> = {}): DeviceRecord {
  const at = new Date("2026-01-01T00:00:00Z");
  return { universalDeviceId: `dv_${deviceId}`, orgId, deviceId, deviceTypeId: null, metadata: {}, customFields: {}, tags: [], created: at, createdBy: "u_owner", modified: at, modifiedBy: "u_owner", ...changes };
}

/** A device type record of `orgId` with every field set. */
export function deviceTypeRecord(deviceTypeId: string, orgId: string): DeviceTypeRecord {
  const at = new Date("2026-01-01T00:00:00Z");
  return { deviceTypeId, orgId, name: "arm", description: null, metadata: {}, tags: [], created: at, createdBy: "u_owner", modified: at, modifiedBy: "u_owner" };
}
