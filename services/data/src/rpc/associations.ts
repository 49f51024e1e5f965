import { invalidArgument, notFound, readableOrg, requireOrg, type EntityManager, type Principal } from "@hangar/shared";
import { DatasetStore } from "../store/dataset-store";

/** What files can belong to: a dataset, or an org itself (org-level files and directories). */
export type AssociationType = "dataset" | "org";

/** An association the caller may use, with the org that owns it. */
export interface ResolvedAssociation {
  orgId: string;
  associationId: string;
  associationType: AssociationType;
}

/**
 * Resolves the association a request names. An org id (or `association_type: org`) names the org
 * itself, which must be the org the call acts in; anything else must be a dataset the caller can read.
 * Devices and device types arrive with their issue; until then they are refused with a 400.
 */
export async function resolveAssociation(em: EntityManager, caller: Principal, associationId: string, field: string, declaredType = ""): Promise<ResolvedAssociation> {
  const type = declaredType || (associationId.startsWith("og_") ? "org" : "dataset");
  if (type === "org") {
    // Only the org the call acts in: transactions and lookups are scoped to it.
    if (associationId !== requireOrg(caller)) throw notFound("org", associationId);
    return { orgId: associationId, associationId, associationType: "org" };
  }
  if (type !== "dataset") throw invalidArgument(`${field}.association_type`, `'${type}' is not supported yet; use 'dataset' or 'org'`);
  const orgId = readableOrg(caller);
  const dataset = orgId && associationId ? await new DatasetStore(em).find(orgId, associationId) : null;
  if (!dataset) throw notFound("dataset", associationId);
  return { orgId: dataset.orgId, associationId: dataset.datasetId, associationType: "dataset" };
}
