import { FlushMode, LockMode } from "@mikro-orm/core";
import { conflict, newId, queryPrepared, sql, textArrayLiteral, type EntityManager, type Orm, type SqlFragment } from "@hangar/shared";
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

  /** A node to change (tracked by the ORM); with `lock`, locked for update (in a transaction). */
  findNode(orgId: string, nodeId: string, lock = false): Promise<FsNodeRow | null> {
    return this.em.findOne(FsNode, { nodeId, orgId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
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

  /** Nodes of an org by id (one query). */
  async nodesByIds(orgId: string, nodeIds: string[]): Promise<Map<string, FsNodeRow>> {
    const rows = nodeIds.length ? await this.em.find(FsNode, { orgId, nodeId: { $in: nodeIds } }) : [];
    return new Map(rows.map((row) => [row.nodeId, row]));
  }

  /** Reads an available file by path without tracking it (the hot path of get_file_by_path). */
  static async readByPath(orm: Orm, associationId: string, relativePath: string): Promise<FsNodeRow | null> {
    const rows = await queryPrepared(
      orm,
      "select * from fs_nodes where association_id = $1 and relative_path = $2 and status = 'available' and fs_type = 'file'",
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
   * after deleting the rows, in the same transaction.
   */
  async unreferencedKeys(uris: string[]): Promise<string[]> {
    const unique = [...new Set(uris)];
    if (unique.length === 0) return [];
    const rows = await this.em.execute<{ uri: string }[]>(
      `select u.uri from unnest(?::text[]) as u(uri)
       where not exists (select 1 from fs_nodes n where n.uri = u.uri)
         and not exists (select 1 from file_versions v where v.snapshot->>'uri' = u.uri)`,
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
   * Aborts an association's open uploads (their pending files go with them) and returns their
   * object keys: no file points at the bytes of an upload that never completed.
   */
  async abortOpenUploads(associationId: string): Promise<string[]> {
    const rows = await this.em.execute<{ object_key: string }[]>(
      `with aborted as (update upload_transactions set status = 'aborted' where association_id = ? and status = 'open' returning transaction_id)
       select i.object_key from upload_items i join aborted a using (transaction_id)`,
      [associationId],
    );
    await this.em.execute("delete from fs_nodes where association_id = ? and status = 'pending'", [associationId]);
    return rows.map((r) => r.object_key);
  }

  /**
   * Deletes everything of an association: its open uploads, its files with their earlier versions,
   * and its directories. Returns the object keys to delete once the transaction commits: the
   * aborted uploads' and those of the files' versions that nothing else points at.
   */
  async deleteAssociation(associationId: string): Promise<string[]> {
    const aborted = await this.abortOpenUploads(associationId);
    const rows = await this.em.execute<{ uri: string }[]>(
      `select uri from fs_nodes where association_id = ? and uri is not null
       union select v.snapshot->>'uri' from file_versions v join fs_nodes n on n.node_id = v.file_id where n.association_id = ?`,
      [associationId, associationId],
    );
    await this.em.execute("delete from file_versions where file_id in (select node_id from fs_nodes where association_id = ?)", [associationId]);
    await this.em.execute("delete from fs_nodes where association_id = ?", [associationId]);
    return [...aborted, ...(await this.unreferencedKeys(rows.map((r) => r.uri)))];
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
      if (existing?.fsType === "file") throw conflict(`'${dirPath}' is a file, so it cannot hold '${file.relativePath}'`);
      const dir: FsNodeRow = existing ?? directoryNode(file, dirPath, parentId, actor, now);
      if (!existing) this.addNode(dir);
      this.directories.set(cacheKey, dir.nodeId);
      parentId = dir.nodeId;
    }
    return parentId;
  }

  /** Serialises path claims in one association until the transaction ends. */
  async lockAssociation(associationId: string): Promise<void> {
    await this.em.execute("select pg_advisory_xact_lock(hashtextextended(?, 0))", [`files:${associationId}`]);
  }

  transaction(orgId: string, transactionId: string): Promise<UploadTransactionRow | null> {
    return this.em.findOne(UploadTransaction, { transactionId, orgId });
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
