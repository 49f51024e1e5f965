import { rawSql, type SqlFragment } from "@hangar/shared";

/**
 * SQL true when the `fs_nodes` row aliased `alias` belongs to an association that has not been
 * deleted. Every read of nodes not scoped through a live dataset, device or device type applies
 * it, which is what makes a deleted owner's files vanish in the deleting transaction.
 */
export function liveAssociation(alias: string): SqlFragment {
  return rawSql(`not exists (select 1 from association_deletions x where x.association_id = ${alias}.association_id)`);
}
