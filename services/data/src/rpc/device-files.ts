import { conflict, type EntityManager } from "@hangar/shared";
import { AssociationDeletionStore, type DeletedAssociation } from "../store/association-deletion-store";
import { FileStore } from "../store/file-store";
import { TreeStore } from "../store/tree-store";

/**
 * Disposes of the files of a device or device type that is being deleted, in the caller's
 * transaction. With `keepIn` its available files and directories first move to the root of that
 * org, where a path taken by something else is a 409 and nothing moves. What is left (all of it,
 * without `keepIn`; else the pending files of open uploads) vanishes from every read on commit,
 * and the background cleanup removes it, with the bytes nothing else points at.
 */
export async function disposeFiles(em: EntityManager, association: DeletedAssociation, keepIn?: string): Promise<void> {
  if (keepIn !== undefined) {
    const files = new FileStore(em);
    await files.lockAssociation(association.associationId);
    await files.lockAssociation(keepIn);
    const to = { associationId: keepIn, associationType: "org" };
    const { clash } = await new TreeStore(files).moveAssociation(association.associationId, to, association.requestedBy);
    if (clash !== null) throw conflict(`keep_configurations: '${clash}' already exists at the root of org '${keepIn}'`);
  }
  await new AssociationDeletionStore(em).retire(association);
}
