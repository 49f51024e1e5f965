import { conflict, type EntityManager, quoteValue } from "@hangar/shared";
import { FileStore } from "../store/file-store";
import { TreeStore } from "../store/tree-store";

/**
 * Disposes of the files of a device or device type that is being deleted, in the caller's
 * transaction: deletes them (open uploads aborted), or with `keepIn` moves them to the root of
 * that org, where a path taken by something else is a 409 and nothing moves. Returns the object
 * keys to delete once the transaction commits (bytes that no file points at any more).
 */
export async function disposeFiles(em: EntityManager, associationId: string, actor: string, keepIn?: string): Promise<string[]> {
  const files = new FileStore(em);
  await files.lockAssociation(associationId);
  if (keepIn === undefined) return files.deleteAssociation(associationId);
  await files.lockAssociation(keepIn);
  const keys = await files.abortOpenUploads(associationId);
  const { clash } = await new TreeStore(files).moveAssociation(associationId, { associationId: keepIn, associationType: "org" }, actor);
  if (clash !== null) throw conflict(`keep_configurations: ${quoteValue(clash)} already exists at the root of org ${quoteValue(keepIn)}`);
  return keys;
}
