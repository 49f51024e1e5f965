import { conflict, quoteValue } from "@hangar/shared";
import type { AssociationRetirement, RetiredAssociation } from "./file-repositories";
import type { DataRepositories } from "./repositories";

/** The repositories the disposal of a deleted owner's files needs. */
export type DisposalRepositories = Pick<DataRepositories, "files" | "tree"> & { associationDeletions: AssociationRetirement };

/**
 * Disposes of the files of a device or device type that is being deleted, in the caller's
 * transaction: records the deletion, which hides whatever stays in the association from every
 * read on commit and leaves it to the background cleanup (with the bytes nothing else points at).
 * With `keepIn` the available files and directories first move to the root of that org, where a
 * path taken by something else is a 409 and nothing moves; only pending files then stay behind.
 */
export async function disposeFiles(repositories: DisposalRepositories, association: RetiredAssociation, keepIn?: string): Promise<void> {
  // First: it takes the device's path lock after its update of the open uploads' rows, the order
  // a completing upload takes them in; the move then holds both path locks.
  await repositories.associationDeletions.retire(association);
  if (keepIn === undefined) return;
  await repositories.files.lockAssociation(keepIn);
  const to = { associationId: keepIn, associationType: "org" };
  const { clash } = await repositories.tree.moveAssociation(association.associationId, to, association.requestedBy);
  if (clash !== null) throw conflict(`keep_configurations: ${quoteValue(clash)} already exists at the root of org ${quoteValue(keepIn)}`);
}
