import type { FsNodeRow } from "./file-records";
import type { FileRepository } from "./file-repositories";

/**
 * What a batch of file writes (an upload's completion, a batch of imports) changes, gathered while
 * every item is checked and written afterwards with a statement per kind of change, whatever the
 * batch's size: a refused batch writes nothing, and the cost follows the rows, not the items.
 */
export interface NodeChanges {
  /** Files as they were before a new version replaced them. */
  versions: FsNodeRow[];
  /** New nodes: directories above new files, and the files. */
  inserted: FsNodeRow[];
  /** Nodes whose row changes (new versions, pending files turned available). */
  updated: FsNodeRow[];
}

export function noNodeChanges(): NodeChanges {
  return { versions: [], inserted: [], updated: [] };
}

/** Writes a batch's changes: new nodes first, so that every parent exists before what it holds. */
export async function writeNodeChanges(files: FileRepository, changes: NodeChanges): Promise<void> {
  await files.insertNodes(changes.inserted);
  await files.snapshot(changes.versions);
  await files.updateNodes(changes.updated);
}
