import { invalidArgument, notFound, readableOrg, recordOrg, requireOrg, type Principal, quoteValue } from "@hangar/shared";
import type { DataRepositories } from "./repositories";

/** What resolving an association reads. */
export type AssociationRepositories = Pick<DataRepositories, "datasets" | "devices" | "deviceTypes" | "owners">;

/** What files can belong to: a dataset, an org itself, a device or a device type. */
export type AssociationType = "dataset" | "org" | "device" | "device_type";

/** An association the caller may use, with the org that owns it. */
export interface ResolvedAssociation {
  orgId: string;
  /** The id the files are stored under: a device's `universal_device_id`, else the id itself. */
  associationId: string;
  associationType: AssociationType;
  /** A device's device type, whose files its listings may inherit; null for anything else. */
  deviceTypeId: string | null;
}

/** An association as a request names it: an id and, optionally, its type. */
export interface AssociationRef {
  associationId: string;
  associationType?: string | undefined;
}

/** The association fields of a request served by a dataset route, an association route, or both. */
export interface RoutedRequest {
  datasetId?: string;
  associationId?: string;
  associationType?: string | undefined;
}

/** The association a request names: the dataset of a dataset route, else the association route's id and optional type. */
export function routeAssociation(req: RoutedRequest): AssociationRef {
  return req.datasetId ? { associationId: req.datasetId, associationType: "dataset" } : { associationId: req.associationId ?? "", associationType: req.associationType };
}

const PREFIXES: [string, AssociationType][] = [
  ["ds_", "dataset"],
  ["og_", "org"],
  ["dv_", "device"],
  ["dt_", "device_type"],
];
const TYPES = new Set<string>(PREFIXES.map(([, type]) => type));

/**
 * The type of association a request names: the declared type, else the one its id's prefix gives
 * (`ds_`, `og_`, `dv_`, `dt_`). An id without one of those prefixes can only be a device's own
 * `device_id`, which has none. An unknown declared type is a 400 naming `typeField`.
 */
export function associationTypeOf(ref: AssociationRef, typeField: string): AssociationType {
  const declared = ref.associationType ?? "";
  if (declared === "") return PREFIXES.find(([prefix]) => ref.associationId.startsWith(prefix))?.[1] ?? "device";
  if (!TYPES.has(declared)) throw invalidArgument(typeField, `${quoteValue(declared)} is not supported; use 'dataset', 'org', 'device' or 'device_type'`);
  return declared as AssociationType;
}

/**
 * Resolves the association a request names. An org must be the org the call acts in; a dataset,
 * device (by `device_id`, or `universal_device_id`) or device type must be one the caller can read.
 * Anything else is a 404, so another org's resources do not leak.
 */
export async function resolveAssociation(r: AssociationRepositories, caller: Principal, ref: AssociationRef, typeField: string): Promise<ResolvedAssociation> {
  const type = associationTypeOf(ref, typeField);
  const id = ref.associationId;
  if (type === "org") {
    // Only the org the call acts in: transactions and lookups are scoped to it.
    if (id !== requireOrg(caller)) throw notFound("org", id);
    return { orgId: id, associationId: id, associationType: "org", deviceTypeId: null };
  }
  // A dataset is a record addressed by its id: a caller in several orgs reaches it without naming one.
  const orgId = type === "dataset" ? await recordOrg(caller, () => r.owners.orgOf("dataset", id)) : readableOrg(caller);
  switch (type) {
    case "dataset": {
      const dataset = orgId && id ? await r.datasets.read(orgId, id) : null;
      if (!dataset) throw notFound("dataset", id);
      return { orgId: dataset.orgId, associationId: dataset.datasetId, associationType: "dataset", deviceTypeId: null };
    }
    case "device": {
      const device = orgId && id ? await r.devices.findByEitherId(orgId, id) : null;
      if (!device) throw notFound("device", id);
      return { orgId: device.orgId, associationId: device.universalDeviceId, associationType: "device", deviceTypeId: device.deviceTypeId };
    }
    case "device_type": {
      const deviceType = orgId && id ? await r.deviceTypes.find(orgId, id) : null;
      if (!deviceType) throw notFound("device type", id);
      return { orgId: deviceType.orgId, associationId: deviceType.deviceTypeId, associationType: "device_type", deviceTypeId: null };
    }
  }
}
