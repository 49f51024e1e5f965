import { conflict, invalidArgument, quoteValue } from "@hangar/shared";
import type { FsNodeRow } from "./file-records";
import type { NodePlace } from "./file-repositories";
import { checkRelativePath, checkUserPath } from "./paths";

/** One move of a move_nodes batch as requested: the node, its expected type, and its new parent and name (each kept when omitted). */
export interface NodeMove {
  nodeId: string;
  fsType: string;
  newParentId?: string | undefined;
  newName?: string | undefined;
}

/** What a batch of moves does, worked out in memory over the nodes the batch loaded. */
export interface MovePlan {
  /** Each move's destination path, in order: none may be taken in the store by a node the batch did not load. */
  destinations: string[];
  /** The nodes whose place changed, at their final place. */
  places: NodePlace[];
  /** The files the moves reached (moved, or below a moved directory), in the order they were reached. */
  fileIds: string[];
  /**
   * Why the batch stops at a move, judged on the loaded nodes alone. Moves run in order, so a
   * destination taken in the store by an earlier move is the error to report first, not this one.
   */
  refusal?: unknown;
}

/** A node as the batch sees it: its row as loaded and its place after the moves applied so far. */
interface BatchNode {
  row: FsNodeRow;
  place: NodePlace;
}

/** Whether a new parent id names the association's root rather than a directory. */
export function isRootParent(newParentId: string): boolean {
  return newParentId === "" || newParentId === "/";
}

/**
 * Applies a batch of moves in order, in memory: each move sees the moves before it, as if they had
 * been written one by one. `loaded` must hold every node whose place a move can read or change:
 * the moved nodes, their old and new parents, and everything below the moved directories (their
 * places change with them). Paths of the nodes not loaded do not change, which is what lets the
 * store check every destination with one query afterwards.
 */
export function planMoves(associationId: string, moves: readonly NodeMove[], loaded: Iterable<FsNodeRow>): MovePlan {
  const batch = new MoveBatch(loaded);
  const plan: MovePlan = { destinations: [], places: [], fileIds: [] };
  const changed = new Map<string, NodePlace>();
  const files = new Set<string>();
  try {
    for (const [i, move] of moves.entries()) {
      const reached = batch.apply(associationId, move, `operations[${i}]`, plan.destinations, changed);
      for (const node of reached) if (node.row.fsType === "file") files.add(node.row.nodeId);
    }
  } catch (refusal) {
    plan.refusal = refusal;
  }
  return { ...plan, places: [...changed.values()], fileIds: [...files] };
}

/** The loaded nodes with their current places, indexed by path (available ones) and by parent. */
class MoveBatch {
  private readonly nodes = new Map<string, BatchNode>();
  private readonly atPath = new Map<string, string>();
  private readonly children = new Map<string, Set<string>>();

  constructor(loaded: Iterable<FsNodeRow>) {
    for (const row of loaded) {
      if (this.nodes.has(row.nodeId)) continue;
      const node = { row, place: { nodeId: row.nodeId, relativePath: row.relativePath, name: row.name, parentId: row.parentId } };
      this.nodes.set(row.nodeId, node);
      if (row.status === "available") this.atPath.set(row.relativePath, row.nodeId);
      this.link(node);
    }
  }

  /** Applies one move; returns the nodes it reached (the node, then what is below it by path). */
  apply(associationId: string, move: NodeMove, field: string, destinations: string[], changed: Map<string, NodePlace>): BatchNode[] {
    const node = this.nodes.get(move.nodeId);
    if (!node || node.row.associationId !== associationId || node.row.status !== "available") {
      throw invalidArgument(`${field}.node_id`, `node ${quoteValue(move.nodeId)} not found in the dataset`);
    }
    if (move.fsType && move.fsType !== node.row.fsType) throw invalidArgument(`${field}.fs_type`, `node ${quoteValue(move.nodeId)} is a ${node.row.fsType}`);
    const parent = this.newParent(associationId, node, move, field);
    const name = move.newName === undefined ? node.place.name : checkRelativePath(move.newName, `${field}.new_name`);
    if (name.includes("/")) throw invalidArgument(`${field}.new_name`, "must be a single name");
    const from = node.place.relativePath;
    const to = parent ? `${parent.place.relativePath}/${name}` : name;
    if (parent) checkUserPath(parent.place.relativePath, `${field}.new_parent_id`);
    else checkUserPath(to, `${field}.new_name`);
    if (to === from) return [node];
    if (node.row.fsType === "directory" && to.startsWith(`${from}/`)) throw invalidArgument(`${field}.new_parent_id`, "cannot move a directory below itself");
    if (this.atPath.has(to)) throw conflict(`${quoteValue(to)} already exists`);
    destinations.push(to);
    const below = this.below(node);
    this.unlink(node);
    for (const moved of [node, ...below]) this.atPath.delete(moved.place.relativePath);
    Object.assign(node.place, { relativePath: to, name, parentId: parent?.row.nodeId ?? null });
    for (const child of below) child.place.relativePath = to + child.place.relativePath.slice(from.length);
    this.link(node);
    for (const moved of [node, ...below]) {
      this.atPath.set(moved.place.relativePath, moved.row.nodeId);
      changed.set(moved.row.nodeId, moved.place);
    }
    return [node, ...below];
  }

  /** The directory a move puts its node in: the given one (null for the root), else the node's current parent. */
  private newParent(associationId: string, node: BatchNode, move: NodeMove, field: string): BatchNode | null {
    if (move.newParentId === undefined) return node.place.parentId ? (this.nodes.get(node.place.parentId) ?? null) : null;
    if (isRootParent(move.newParentId)) return null;
    const parent = this.nodes.get(move.newParentId);
    if (!parent || parent.row.associationId !== associationId || parent.row.fsType !== "directory" || parent.row.status !== "available") {
      throw invalidArgument(`${field}.new_parent_id`, `directory ${quoteValue(move.newParentId)} not found in the dataset`);
    }
    return parent;
  }

  /** Everything below a node (through the parent links), by current path. */
  private below(node: BatchNode): BatchNode[] {
    const found: BatchNode[] = [];
    const pending = [node.row.nodeId];
    for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
      for (const childId of this.children.get(id) ?? []) {
        found.push(this.nodes.get(childId)!);
        pending.push(childId);
      }
    }
    return found.sort((a, b) => (a.place.relativePath < b.place.relativePath ? -1 : 1));
  }

  private link(node: BatchNode): void {
    if (node.place.parentId === null || node.row.status !== "available") return;
    const siblings = this.children.get(node.place.parentId) ?? new Set<string>();
    siblings.add(node.row.nodeId);
    this.children.set(node.place.parentId, siblings);
  }

  private unlink(node: BatchNode): void {
    if (node.place.parentId !== null) this.children.get(node.place.parentId)?.delete(node.row.nodeId);
  }
}
