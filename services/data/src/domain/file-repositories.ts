import type { KeysetPageRows, KeysetSearch, SqlFragment } from "@hangar/shared";
import type { FsNodeRow, UploadItemRow, UploadTransactionRow } from "./file-records";

/**
 * Files and directories (`fs_nodes`) and their earlier versions. Nodes from `findNode` and
 * `findAvailableAtPath` are the unit of work's: changing them is written when it commits. Every
 * other read is untracked, and the writes below are explicit statements run at once.
 */
export interface FileRepository {
  /** Marks these file versions of the org as matched by an auto-ingesting rule at upload (one statement; other versions are left). */
  markIngestable(orgId: string, files: readonly { fileId: string; version: bigint }[]): Promise<void>;
  /**
   * Whether each path matches one of the org's ingestion rules, as the rules the compute service
   * last sent say (one query); null when it has sent none for the org.
   */
  ingestableVerdicts(orgId: string, paths: readonly string[]): Promise<Map<string, boolean> | null>;
  /**
   * Keeps the org's rules read at `asOf` unless a later reading is kept, then recomputes every
   * dataset file's `ingestable` from them (one statement); the number of files that changed, or
   * null when the reading was older and nothing changed.
   */
  setIngestionRules(orgId: string, rules: readonly IngestionPathRegexes[], asOf: Date): Promise<number | null>;
  /** A node of the org; a node whose owner was deleted is not found. With `lock`, locked for update (in a transaction). */
  findNode(orgId: string, nodeId: string, lock?: boolean): Promise<FsNodeRow | null>;
  /** The available node at a path, if any. */
  findAvailableAtPath(associationId: string, relativePath: string): Promise<FsNodeRow | null>;
  /** The available nodes at several paths of an association, by path (one query). */
  availableAtPaths(associationId: string, relativePaths: string[]): Promise<Map<string, FsNodeRow>>;
  /** Nodes of an org by id (one query), leaving out those whose owner was deleted. */
  nodesByIds(orgId: string, nodeIds: string[]): Promise<Map<string, FsNodeRow>>;
  /** The file at a path, untracked (the hot read): the available one, else the newest pending one. */
  readByPath(associationId: string, relativePath: string): Promise<FsNodeRow | null>;
  /** An earlier version's snapshot of a file. */
  version(fileId: string, version: bigint): Promise<FsNodeRow | null>;
  /** Keeps the current state of files as earlier versions before they change (one statement). */
  snapshot(nodes: readonly FsNodeRow[]): Promise<void>;
  /** Inserts nodes (one statement); an available one is what `nodeAtPath` answers for its path from now on. */
  insertNodes(rows: readonly FsNodeRow[]): Promise<void>;
  /** Makes new nodes what `nodeAtPath` answers for their paths before a batch inserts them with `insertNodes`. */
  planNodes(rows: readonly FsNodeRow[]): void;
  /** Writes nodes' current state over their rows (one statement). */
  updateNodes(rows: readonly FsNodeRow[]): Promise<void>;
  /** The `s3://` URIs a file's current and earlier versions point at. */
  urisOf(fileId: string): Promise<string[]>;
  /** The `s3://` URIs the current and earlier versions of several files point at (one query). */
  urisOfAll(fileIds: readonly string[]): Promise<string[]>;
  /** The object keys of `uris` nothing points at any more; call it after deleting rows, in the same transaction. */
  unreferencedKeys(uris: string[]): Promise<string[]>;
  /** Deletes a node and its earlier versions. */
  deleteNode(nodeId: string): Promise<void>;
  /** Deletes several nodes and their earlier versions (two statements whatever the count). */
  deleteNodes(nodeIds: readonly string[]): Promise<void>;
  /** Loads the available nodes at `paths` and the directories above them in one query, for `nodeAtPath` and `ensureParents`. */
  prefetchPaths(associationId: string, paths: readonly string[]): Promise<void>;
  /** The available node at a path as this unit of work sees it: prefetched or created here, else looked up. */
  nodeAtPath(associationId: string, relativePath: string): Promise<FsNodeRow | null>;
  /**
   * The directories above a path: the innermost one's id (null at the root), and the ones missing,
   * new and not yet inserted (later plans of this unit of work reuse them), for a batch to insert at once.
   */
  planParents(file: Pick<FsNodeRow, "orgId" | "associationId" | "associationType" | "relativePath">, actor: string, now: Date): Promise<{ parentId: string | null; directories: FsNodeRow[] }>;
  /** Makes sure the directories above a path exist; returns the innermost one's id, or null at the root. */
  ensureParents(file: Pick<FsNodeRow, "orgId" | "associationId" | "associationType" | "relativePath">, actor: string, now: Date): Promise<string | null>;
  /** Serialises path claims in one association until the transaction ends; a deleted owner is a 404. */
  lockAssociation(associationId: string): Promise<void>;
  /** One keyset page of an association's available files and the number of matches; `inheritedFrom` adds a device type's. */
  search(associationId: string, search: KeysetSearch, inheritedFrom?: string | null): Promise<KeysetPageRows<FsNodeRow> & { total: number }>;
  /** The distinct device ids of the org's files among `fileIds`. */
  deviceIds(orgId: string, fileIds: string[]): Promise<string[]>;
}

/** An ingestion rule's path patterns as regular expressions (the same in PostgreSQL and JavaScript). */
export interface IngestionPathRegexes {
  include: string[];
  exclude: string[];
}

/** Where a page of directory children ends: the last child's sort key. */
export type ChildCursor = Pick<FsNodeRow, "fsType" | "name" | "nodeId">;

/** Where a node sits: what a move changes. */
export type NodePlace = Pick<FsNodeRow, "nodeId" | "relativePath" | "name" | "parentId">;

/** Subtree reads and moves: a node's descendants are the available nodes whose path starts with its path and a slash. */
export interface TreeRepository {
  /** Available nodes below `path` (all when `path` is the root ""), optionally files only, sorted by path. */
  below(associationId: string, path: string, options?: { filesOnly?: boolean; showHidden?: boolean }): Promise<FsNodeRow[]>;
  /** One page of an association's directories by path; with `afterPath`, those after it. */
  directories(associationId: string, limit: number, afterPath: string | undefined): Promise<FsNodeRow[]>;
  /** Counts the available directories of an association. */
  countDirectories(associationId: string): Promise<number>;
  /** Counts the available files below `path`. */
  countFiles(associationId: string, path: string, showHidden: boolean): Promise<number>;
  /** One page of a directory's direct children (directories first, then files, by name), after `after`. */
  children(associationId: string, parentId: string | null, showHidden: boolean, limit: number, after?: FsNodeRow | ChildCursor): Promise<FsNodeRow[]>;
  /** Rewrites the paths below `from` to sit below `to` (after the node at `from` itself moved). */
  movePrefix(associationId: string, from: string, to: string, actor: string): Promise<void>;
  /** Nodes of an org by id, untracked (one query), leaving out those whose owner was deleted. */
  byIds(orgId: string, nodeIds: readonly string[]): Promise<FsNodeRow[]>;
  /** The available nodes below any of `paths` (one query), untracked. */
  subtrees(associationId: string, paths: readonly string[]): Promise<FsNodeRow[]>;
  /** Writes nodes' new places (path, name, parent) in one statement, marking them modified by `actor`. */
  relocate(places: readonly NodePlace[], actor: string): Promise<void>;
  /** Moves every available node of one association to the root of another; a clashing path is returned and nothing moves. */
  moveAssociation(from: string, to: { associationId: string; associationType: string }, actor: string): Promise<{ clash: string | null }>;
}

/** Upload transactions and their manifest items. */
export interface UploadRepository {
  /** An upload transaction of the org; with `lock` (in a transaction) its row stays locked until the transaction ends. */
  transaction(orgId: string, transactionId: string, lock?: boolean): Promise<UploadTransactionRow | null>;
  /** Transactions of an org by id (one query). */
  transactionsByIds(orgId: string, transactionIds: readonly string[]): Promise<Map<string, UploadTransactionRow>>;
  /** A transaction's items, by path. */
  items(transactionId: string): Promise<UploadItemRow[]>;
  /** The items of several transactions (one query). */
  itemsOfAll(transactionIds: readonly string[]): Promise<UploadItemRow[]>;
  /** Inserts a transaction. */
  insertTransaction(row: UploadTransactionRow): Promise<void>;
  /** Writes transactions' status and completion time (one statement). */
  updateStatuses(rows: readonly UploadTransactionRow[]): Promise<void>;
  /** Inserts manifest items (one statement). */
  insertItems(rows: readonly UploadItemRow[]): Promise<void>;
  /** Writes items' file and whether their bytes are in (one statement). */
  updateItems(rows: readonly UploadItemRow[]): Promise<void>;
}

/** One page of an org-wide file search. */
export interface FileSearchPage extends KeysetPageRows<FsNodeRow> {
  /** The number of matches, or undefined when there are more than the count cap. */
  total: number | undefined;
}

/** Org-wide searches over available files (query_files, count_files). */
export interface FileSearchRepository {
  /** One keyset page in the org, with the number of matches when at most `countCap`. */
  search(orgId: string, search: KeysetSearch, countCap: number): Promise<FileSearchPage>;
  /** The exact number of the org's available files matching `where`. */
  count(orgId: string, where: SqlFragment): Promise<number>;
}

/** The dataset reads the file operations need (the dataset repository provides them). */
export interface DatasetLookup {
  /** A dataset of the org, if any. */
  find(orgId: string, datasetId: string): Promise<{ datasetId: string; orgId: string } | null>;
  /** Which of `datasetIds` are datasets of the org (one query). */
  existingIds(orgId: string, datasetIds: readonly string[]): Promise<Set<string>>;
}

/** What owns files being deleted (a dataset, device or device type), and who deleted it. */
export interface RetiredAssociation {
  associationId: string;
  associationType: string;
  orgId: string;
  requestedBy: string;
}

/** The deletion record of a files' owner, as the file operations use it (the association deletion repository provides it). */
export interface AssociationRetirement {
  /** In the caller's transaction: aborts the owner's open uploads and records its deletion, which hides its files on commit. */
  retire(association: RetiredAssociation): Promise<void>;
}
