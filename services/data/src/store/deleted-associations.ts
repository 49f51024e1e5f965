import { raw, type FilterQuery } from "@mikro-orm/core";
import { rawSql, type SqlFragment } from "@hangar/shared";
import type { FsNodeRow } from "./file-entities";

/** The condition itself, over the `fs_nodes` row aliased `alias`; `offset 0` keeps it a per-row probe. */
function liveText(alias: string, probe = false): string {
  return `not exists (select 1 from association_deletions x where x.association_id = ${alias}.association_id${probe ? " offset 0" : ""})`;
}

/**
 * SQL true when the `fs_nodes` row aliased `alias` belongs to an association that has not been
 * deleted (a primary-key probe). Every read of nodes not scoped through a live dataset, device or
 * device type applies it, which is what makes a deleted owner's files vanish in the deleting
 * transaction, however many there are.
 */
export function liveAssociation(alias: string): SqlFragment {
  return rawSql(liveText(alias));
}

/**
 * The same condition kept a per-row primary-key probe (a SubPlan: OFFSET 0 stops PostgreSQL from
 * turning the NOT EXISTS into an anti-join), for page queries that walk a sort-order index under
 * a LIMIT. As an anti-join it is estimated to leave about one row (association_deletions holds
 * few or no rows yet), and the planner then sorts every match instead: a large dataset's newest
 * files read 20,000 rows for a page of 101 (services/data/src/store/query-plans.spec.ts).
 */
export function liveAssociationProbe(alias: string): SqlFragment {
  return rawSql(liveText(alias, true));
}

/** The same condition as an ORM filter on FsNode, to combine with others in one query. */
export function liveAssociationFilter(): FilterQuery<FsNodeRow> {
  return { [raw((alias: string) => liveText(alias))]: [] } as FilterQuery<FsNodeRow>;
}
