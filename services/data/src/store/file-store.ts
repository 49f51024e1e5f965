import { FlushMode, LockMode } from "@mikro-orm/core";
import { conflict, newId, notFound, queryPrepared, sql, textArrayLiteral, type EntityManager, type Orm, type SqlFragment, quoteValue } from "@hangar/shared";
import { ancestorDirectories } from "../domain/paths";
import {
  FileVersion,
  FsNode,
  UploadItem,
  UploadTransaction,
  fsNodeFromRow,
  newFsNode,
  type FsNodeRow,
  type UploadItemRow,
  type UploadTransactionRow,
} from "./file-entities";
import { keyOfUri } from "../object-store/object-store";
import { liveAssociation, liveAssociationFilter } from "./deleted-associations";

/** A compiled search over one association's available files. */
export interface FileSearch {
  where: SqlFragment;
  orderBy: SqlFragment;
  limit: number;
  offset: number;
}

/** Reads and writes of files, directories and uploads; the RPC layer never touches the ORM. */
export class FileStore {
  /** Directories found or created in this unit of work, by association and path. */
  private readonly directories = new Map<string, string>();

  constructor(readonly em: EntityManager) {}

  /** A node to change (tracked by the ORM); a node whose owner was deleted is not found. */
  findNode(orgId: string, nodeId: string): Promise<FsNodeRow | null> {
    return this.em.findOne(FsNode, { nodeId, orgId, ...liveAssociationFilter() });
  }

  /** The available node at a path, if any. */
  findAvailableAtPath(associationId: string, relativePath: string): Promise<FsNodeRow | null> {
    return this.em.findOne(FsNode, { associationId, relativePath, status: "available" });
  }

  /** The available nodes at several paths of an association, by path (one query). */
  async availableAtPaths(associationId: string, relativePaths: string[]): Promise<Map<string, FsNodeRow>> {
    const rows = relativePaths.length ? await this.em.find(FsNode, { associationId, relativePath: { $in: relativePaths }, status: "available" }) : [];
    return new Map(rows.map((row) => [row.relativePath, row]));
  }

  /** Nodes of an org by id (one query), leaving out those whose owner was deleted. */
  async nodesByIds(orgId: string, nodeIds: string[]): Promise<Map<string, FsNodeRow>> {
    const rows = nodeIds.length ? await this.em.find(FsNode, { orgId, nodeId: { $in: nodeIds }, ...liveAssociationFilter() }) : [];
    return new Map(rows.map((row) => [row.nodeId, row]));
  }

  /**
   * Reads the file at a path without tracking it (the hot path of get_file_by_path): the available
   * one, else the newest pending one (a file whose first upload is still open).
   */
  static async readByPath(orm: Orm, associationId: string, relativePath: string): Promise<FsNodeRow | null> {
    const rows = await queryPrepared(
      orm,
      `select * from fs_nodes n where association_id = $1 and relative_path = $2 and status in ('available', 'pending') and fs_type = 'file'
       and ${liveAssociation("n").sql} order by status = 'available' desc, created desc, node_id desc limit 1`,
      [associationId, relativePath],
    );
    return rows[0] ? fsNodeFromRow(rows[0]) : null;
  }

  /** An earlier version's snapshot of a file. */
  async version(fileId: string, version: bigint): Promise<FsNodeRow | null> {
    const row = await this.em.findOne(FileVersion, { fileId, version: String(version) });
    return row ? (row.snapshot as unknown as FsNodeRow) : null;
  }

  /** Keeps the current state of a file as an earlier version before it changes. */
  snapshot(node: FsNodeRow): void {
    this.em.create(FileVersion, { fileId: node.nodeId, version: node.version, snapshot: { ...node } as Record<string, unknown> });
  }

  addNode(row: FsNodeRow): void {
    this.em.create(FsNode, row);
  }

  remove(row: object): void {
    this.em.remove(row);
  }

  /** The `s3://` URIs a file's current and earlier versions point at. */
  async urisOf(fileId: string): Promise<string[]> {
    const rows = await this.em.execute<{ uri: string }[]>(
      "select uri from fs_nodes where node_id = ? and uri is not null union select snapshot->>'uri' from file_versions where file_id = ?",
      [fileId, fileId],
    );
    return rows.map((r) => r.uri);
  }

  /**
   * The object keys of `uris` that no file or earlier version points at any more. Links and imports
   * share objects, so a delete removes bytes only when this says nothing else needs them. Call it
   * after deleting the rows, in the same transaction. Files of a deleted owner are on their way
   * out and need nothing, so two cleanups sharing an object cannot each leave the bytes to the other.
   */
  async unreferencedKeys(uris: string[]): Promise<string[]> {
    const unique = [...new Set(uris)];
    if (unique.length === 0) return [];
    const rows = await this.em.execute<{ uri: string }[]>(
      `select u.uri from unnest(?::text[]) as u(uri)
       where not exists (select 1 from fs_nodes n where n.uri = u.uri and ${liveAssociation("n").sql})
         and not exists (select 1 from file_versions v join fs_nodes n on n.node_id = v.file_id where v.snapshot->>'uri' = u.uri and ${liveAssociation("n").sql})`,
      [textArrayLiteral(unique)],
    );
    return rows.map((r) => keyOfUri(r.uri));
  }

  async deleteVersions(fileId: string): Promise<void> {
    await this.em.nativeDelete(FileVersion, { fileId });
  }

  /** Deletes a node and its earlier versions. */
  async deleteNode(nodeId: string): Promise<void> {
    await this.em.nativeDelete(FileVersion, { fileId: nodeId });
    await this.em.nativeDelete(FsNode, { nodeId });
  }

  /**
   * Makes sure the directories above `path` exist as available nodes; returns the id of the
   * innermost one (the file's parent), or null for a path at the association's root.
   */
  async ensureParents(file: Pick<FsNodeRow, "orgId" | "associationId" | "associationType" | "relativePath">, actor: string, now: Date): Promise<string | null> {
    let parentId: string | null = null;
    for (const dirPath of ancestorDirectories(file.relativePath)) {
      const cacheKey = `${file.associationId}\u0000${dirPath}`;
      const known = this.directories.get(cacheKey);
      if (known) {
        parentId = known;
        continue;
      }
      // No flush first: directories created earlier in this unit of work are in the cache, and a
      // flush per lookup makes a large upload's completion quadratic in its file count.
      const existing = await this.em.findOne(FsNode, { associationId: file.associationId, relativePath: dirPath, status: "available" }, { flushMode: FlushMode.COMMIT });
      if (existing?.fsType === "file") throw conflict(`${quoteValue(dirPath)} is a file, so it cannot hold ${quoteValue(file.relativePath)}`);
      const dir: FsNodeRow = existing ?? directoryNode(file, dirPath, parentId, actor, now);
      if (!existing) this.addNode(dir);
      this.directories.set(cacheKey, dir.nodeId);
      parentId = dir.nodeId;
    }
    return parentId;
  }

  /**
   * Serialises path claims in one association until the transaction ends. Every write that adds
   * or moves nodes takes it, and a deletion of the owner takes it too, so a write that looked the
   * owner up just before it was deleted is refused here (404) instead of adding invisible files.
   */
  async lockAssociation(associationId: string): Promise<void> {
    await this.lockPaths(associationId);
    const deleted = await this.em.execute<{ association_type: string }[]>("select association_type from association_deletions where association_id = ?", [associationId]);
    if (deleted[0]) throw notFound(deleted[0].association_type.replace("_", " "), associationId);
  }

  /** The path lock alone: for the owner's own deletion, which records itself under the lock. */
  async lockPaths(associationId: string): Promise<void> {
    await this.em.execute("select pg_advisory_xact_lock(hashtextextended(?, 0))", [`files:${associationId}`]);
  }

  /**
   * An upload transaction of the org; with `lock` (in a transaction) its row stays locked until
   * the transaction ends, which orders a completion against a delete of its owner.
   */
  transaction(orgId: string, transactionId: string, lock = false): Promise<UploadTransactionRow | null> {
    return this.em.findOne(UploadTransaction, { transactionId, orgId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  items(transactionId: string): Promise<UploadItemRow[]> {
    return this.em.find(UploadItem, { transactionId }, { orderBy: { relativePath: "asc" } });
  }

  addTransaction(row: UploadTransactionRow): void {
    this.em.create(UploadTransaction, row);
  }

  addItem(row: UploadItemRow): void {
    this.em.create(UploadItem, row);
  }

  /**
   * One page of an association's available files and the number of matches. With `inheritedFrom`
   * (a device's device type) that association's files join in, except where the first has a file
   * at the same path: a device's own file overrides its type's.
   */
  async search(associationId: string, search: FileSearch, inheritedFrom: string | null = null): Promise<{ rows: FsNodeRow[]; total: number }> {
    const own = sql`f.association_id = ${associationId}`;
    const scope = inheritedFrom === null ? own : sql`(${own} or (f.association_id = ${inheritedFrom} and not exists (
      select 1 from fs_nodes o where o.association_id = ${associationId} and o.relative_path = f.relative_path and o.status = 'available' and o.fs_type = 'file')))`;
    const where = sql`${scope} and f.status = 'available' and f.fs_type = 'file' and (${search.where})`;
    const page = sql`select f.* from fs_nodes f where ${where} order by ${search.orderBy} limit ${search.limit} offset ${search.offset}`;
    const count = sql`select count(*) as total from fs_nodes f where ${where}`;
    const [rows, counts] = await Promise.all([
      this.em.execute(page.sql, [...page.params]),
      this.em.execute<{ total: string }[]>(count.sql, [...count.params]),
    ]);
    return { rows: rows.map(fsNodeFromRow), total: Number(counts[0]!.total) };
  }

  flush(): Promise<void> {
    return this.em.flush();
  }
}

function directoryNode(
  file: Pick<FsNodeRow, "orgId" | "associationId" | "associationType">,
  dirPath: string,
  parentId: string | null,
  actor: string,
  now: Date,
): FsNodeRow {
  return newFsNode({
    nodeId: newId("dr"),
    orgId: file.orgId,
    associationId: file.associationId,
    associationType: file.associationType,
    fsType: "directory",
    parentId,
    relativePath: dirPath,
    status: "available",
    created: now,
    createdBy: actor,
  });
}
