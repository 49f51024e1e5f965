import { conflict, type EntityManager, quoteValue } from "@hangar/shared";
import type { DeletedAssociation } from "../domain/association-cleanup";
import { AssociationDeletionStore } from "../store/association-deletion-store";
import { FileStore } from "../store/file-store";
import { TreeStore } from "../store/tree-store";

/**
 * Disposes of the files of a device or device type that is being deleted, in the caller's
 * transaction: records the deletion, which hides whatever stays in the association from every
 * read on commit and leaves it to the background cleanup (with the bytes nothing else points at).
 * With `keepIn` the available files and directories first move to the root of that org, where a
 * path taken by something else is a 409 and nothing moves; only pending files then stay behind.
 */
export async function disposeFiles(em: EntityManager, association: DeletedAssociation, keepIn?: string): Promise<void> {
  // First: it takes the device's path lock after its update of the open uploads' rows, the order
  // a completing upload takes them in; the move then holds both path locks.
  await new AssociationDeletionStore(em).retire(association);
  if (keepIn === undefined) return;
  const files = new FileStore(em);
  await files.lockAssociation(keepIn);
  const to = { associationId: keepIn, associationType: "org" };
  const { clash } = await new TreeStore(files).moveAssociation(association.associationId, to, association.requestedBy);
  if (clash !== null) throw conflict(`keep_configurations: ${quoteValue(clash)} already exists at the root of org ${quoteValue(keepIn)}`);
}
