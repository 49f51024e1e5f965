import { LockMode } from "@mikro-orm/core";
import {
  conflict,
  keysetPageRows,
  keysetPageSql,
  newId,
  notFound,
  queryPrepared,
  quoteValue,
  rawSql,
  sql,
  textArrayLiteral,
  type EntityManager,
  type KeysetPageRows,
  type KeysetSearch,
  type SqlFragment,
} from "@hangar/shared";
import { ancestorDirectories } from "../domain/paths";
import { platformFilesExcluded, withDerivedIdsSql } from "./platform-files";
import { ingestableVersionSql, matchesRuleSql } from "./ingestable-sql";
import { newFsNode, type FsNodeRow } from "../domain/file-records";
import type { FileRepository, IngestionPathRegexes } from "../domain/file-repositories";
import { FileVersion, FsNode, fsNodeFromRow, fsNodeToRow } from "./file-entities";
import { keyOfUri } from "../object-store/object-store";
import { liveAssociation, liveAssociationFilter } from "./deleted-associations";

const FILES = rawSql("fs_nodes f");

/** The columns of FsNodeRow, as `fs_nodes` names them. */
const NODE_COLUMNS = [
  "node_id", "org_id", "association_id", "association_type", "fs_type", "parent_id", "name", "relative_path", "status", "size", "uri", "version",
  "description", "device_id", "metadata", "tags", "ingestion_status", "ingestable_version", "origination", "storage_type", "upload_id",
  "created", "created_by", "modified", "modified_by",
];
const NODE_COLUMN_LIST = NODE_COLUMNS.join(", ");

/**
 * The file repository: files and directories, their versions, and the path lock. Writes are
 * explicit statements, one per batch; `findNode` and `findAvailableAtPath` still hand out
 * MikroORM-tracked nodes for the callers that change a node in place.
 */
export class FileStore implements FileRepository {
  /**
   * Available nodes at paths looked up, prefetched or created in this unit of work, by association
   * and path; null where a lookup found none.
   */
  private readonly known = new Map<string, FsNodeRow | null>();

  constructor(readonly em: EntityManager) {}

  async markIngestable(orgId: string, files: readonly { fileId: string; version: bigint }[]): Promise<void> {
    if (files.length === 0) return;
    await this.em.execute(
      `update fs_nodes n set ingestable_version = m.version from jsonb_to_recordset(?::jsonb) as m(file_id text, version bigint)
       where n.node_id = m.file_id and n.org_id = ? and n.version = m.version`,
      [JSON.stringify(files.map((f) => ({ file_id: f.fileId, version: f.version.toString() }))), orgId],
    );
  }

  async ingestableVerdicts(orgId: string, paths: readonly string[]): Promise<Map<string, boolean> | null> {
    if (paths.length === 0) return new Map();
    const rows = await this.em.execute<{ path: string; known: boolean; matches: boolean }[]>(
      `select candidate.path, r.org_id is not null as known, r.org_id is not null and ${matchesRuleSql("r", "candidate.path")} as matches
       from unnest(?::text[]) candidate(path) left join ingestion_path_rules r on r.org_id = ?`,
      [textArrayLiteral(paths), orgId],
    );
    return rows[0]?.known ? new Map(rows.map((row) => [row.path, row.matches])) : null;
  }

  async setIngestionRules(orgId: string, rules: readonly IngestionPathRegexes[], asOf: Date): Promise<number | null> {
    const kept = await this.em.execute<{ org_id: string }[]>(
      `insert into ingestion_path_rules (org_id, rules, as_of) values (?, ?::jsonb, ?)
       on conflict (org_id) do update set rules = excluded.rules, as_of = excluded.as_of where ingestion_path_rules.as_of < excluded.as_of
       returning org_id`,
      [orgId, JSON.stringify(rules), asOf],
    );
    if (kept.length === 0) return null;
    // One statement for the org's files; only those whose verdict changes are written.
    const changed = await this.em.execute<{ node_id: string }[]>(
      `update fs_nodes n set ingestable_version = v.version from
         (select node_id, ${ingestableVersionSql("f", "f.relative_path")} as version from fs_nodes f
          where f.org_id = ? and f.fs_type = 'file' and f.association_type = 'dataset') v
       where n.node_id = v.node_id and n.ingestable_version is distinct from v.version returning n.node_id`,
      [orgId],
    );
    return changed.length;
  }

  /**
   * A node to change (tracked by the ORM); a node whose owner was deleted is not found. With `lock`,
   * locked for update (in a transaction).
   */
  findNode(orgId: string, nodeId: string, lock = false): Promise<FsNodeRow | null> {
    return this.em.findOne(FsNode, { nodeId, orgId, ...liveAssociationFilter() }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  /** The available node at a path, if any, tracked: renaming a directory changes the one it finds in place. */
  findAvailableAtPath(associationId: string, relativePath: string): Promise<FsNodeRow | null> {
    return this.em.findOne(FsNode, { associationId, relativePath, status: "available" });
  }

  /** The available nodes at several paths of an association, by path (one query, untracked). */
  async availableAtPaths(associationId: string, relativePaths: readonly string[]): Promise<Map<string, FsNodeRow>> {
    if (relativePaths.length === 0) return new Map();
    const rows = await this.em.execute<Record<string, unknown>[]>(
      "select * from fs_nodes where association_id = ? and relative_path = any(?::text[]) and status = 'available'",
      [associationId, textArrayLiteral(relativePaths)],
    );
    return new Map(rows.map((row) => [row.relative_path as string, fsNodeFromRow(row)]));
  }

  /** Nodes of an org by id (one query, untracked), leaving out those whose owner was deleted. */
  async nodesByIds(orgId: string, nodeIds: readonly string[]): Promise<Map<string, FsNodeRow>> {
    if (nodeIds.length === 0) return new Map();
    const rows = await this.em.execute<Record<string, unknown>[]>(`select * from fs_nodes n where org_id = ? and node_id = any(?::text[]) and ${liveAssociation("n").sql}`, [
      orgId,
      textArrayLiteral(nodeIds),
    ]);
    return new Map(rows.map((row) => [row.node_id as string, fsNodeFromRow(row)]));
  }

  /**
   * Reads the file at a path without tracking it (the hot path of get_file_by_path, a prepared
   * statement): the available one, else the newest pending one (a file whose first upload is still open).
   */
  async readByPath(associationId: string, relativePath: string): Promise<FsNodeRow | null> {
    const rows = await queryPrepared(
      { em: this.em },
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

  /** Keeps the current state of files as earlier versions before they change (one statement). */
  async snapshot(nodes: readonly FsNodeRow[]): Promise<void> {
    if (nodes.length === 0) return;
    await this.em.execute(
      `insert into file_versions (file_id, version, snapshot) select v->>'nodeId', (v->>'version')::bigint, v from jsonb_array_elements(?::jsonb) v`,
      [JSON.stringify(nodes.map((node) => ({ ...node })))],
    );
  }

  /** Inserts nodes (one statement); an available one is what `nodeAtPath` answers for its path from now on. */
  async insertNodes(rows: readonly FsNodeRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.em.execute(`insert into fs_nodes (${NODE_COLUMN_LIST}) select ${NODE_COLUMN_LIST} from jsonb_populate_recordset(null::fs_nodes, ?::jsonb)`, [
      JSON.stringify(rows.map(fsNodeToRow)),
    ]);
    this.planNodes(rows);
  }

  /** Makes new nodes (the available ones) what `nodeAtPath` answers for their paths before a batch inserts them. */
  planNodes(rows: readonly FsNodeRow[]): void {
    for (const row of rows) if (row.status === "available") this.known.set(pathKey(row.associationId, row.relativePath), row);
  }

  /** Writes nodes' current state over their rows (one statement). */
  async updateNodes(rows: readonly FsNodeRow[]): Promise<void> {
    if (rows.length === 0) return;
    const values = NODE_COLUMNS.map((column) => `r.${column}`).join(", ");
    await this.em.execute(
      `update fs_nodes n set (${NODE_COLUMN_LIST}) = (${values}) from jsonb_populate_recordset(null::fs_nodes, ?::jsonb) r where n.node_id = r.node_id`,
      [JSON.stringify(rows.map(fsNodeToRow))],
    );
  }

  /** The `s3://` URIs a file's current and earlier versions point at. */
  async urisOf(fileId: string): Promise<string[]> {
    return this.urisOfAll([fileId]);
  }

  /** The `s3://` URIs the current and earlier versions of several files, and of the files derived from them, point at (one query). */
  async urisOfAll(fileIds: readonly string[]): Promise<string[]> {
    if (fileIds.length === 0) return [];
    const query = sql`with doomed as (${withDerivedIdsSql(textArrayLiteral(fileIds))})
      select uri from fs_nodes where node_id in (select node_id from doomed) and uri is not null
      union select snapshot->>'uri' from file_versions where file_id in (select node_id from doomed)`;
    const rows = await this.em.execute<{ uri: string }[]>(query.sql, [...query.params]);
    return rows.map((r) => r.uri);
  }

  /**
   * The object keys of `uris` that no file or earlier version points at any more. Links and imports
   * share objects, so a delete removes bytes only when this says nothing else needs them. Call it
   * after deleting the rows, in the same transaction. Files of a deleted owner are on their way
   * out and need nothing, so two cleanups sharing an object cannot each leave the bytes to the other.
   */
  async unreferencedKeys(uris: string[]): Promise<string[]> {
    // A link's `roboto://` pointer names no object.
    const unique = [...new Set(uris)].filter((uri) => uri.startsWith("s3://"));
    if (unique.length === 0) return [];
    const rows = await this.em.execute<{ uri: string }[]>(
      `select u.uri from unnest(?::text[]) as u(uri)
       where not exists (select 1 from fs_nodes n where n.uri = u.uri and ${liveAssociation("n").sql})
         and not exists (select 1 from file_versions v join fs_nodes n on n.node_id = v.file_id where v.snapshot->>'uri' = u.uri and ${liveAssociation("n").sql})`,
      [textArrayLiteral(unique)],
    );
    return rows.map((r) => keyOfUri(r.uri));
  }

  /** Deletes a node and its earlier versions, and the files derived from it. */
  async deleteNode(nodeId: string): Promise<void> {
    await this.deleteNodes([nodeId]);
  }

  /**
   * Deletes several nodes and their earlier versions, and the files derived from them (the
   * derived-files directory of each, see withDerivedIdsSql): three statements whatever the count.
   */
  async deleteNodes(nodeIds: readonly string[]): Promise<void> {
    if (nodeIds.length === 0) return;
    const doomed = sql`${withDerivedIdsSql(textArrayLiteral(nodeIds))}`;
    const ids = await this.em.execute<{ node_id: string }[]>(doomed.sql, [...doomed.params]);
    const all = textArrayLiteral([...new Set(ids.map((row) => row.node_id))]);
    await this.em.execute("delete from file_versions where file_id = any(?::text[])", [all]);
    await this.em.execute("delete from fs_nodes where node_id = any(?::text[])", [all]);
  }

  /**
   * Loads, in one query, the available nodes at `paths` and at every directory above them, so that
   * a batch's `nodeAtPath` and `ensureParents` calls cost one lookup rather than one per path.
   */
  async prefetchPaths(associationId: string, paths: readonly string[]): Promise<void> {
    const all = new Set([...paths, ...paths.flatMap(ancestorDirectories)]);
    const wanted = [...all].filter((path) => !this.known.has(pathKey(associationId, path)));
    const found = await this.availableAtPaths(associationId, wanted);
    for (const path of wanted) this.known.set(pathKey(associationId, path), found.get(path) ?? null);
  }

  /** The available node at a path as this unit of work sees it: prefetched or created here, else looked up. */
  async nodeAtPath(associationId: string, relativePath: string): Promise<FsNodeRow | null> {
    const key = pathKey(associationId, relativePath);
    if (this.known.has(key)) return this.known.get(key) ?? null;
    await this.prefetchPaths(associationId, [relativePath]);
    return this.known.get(key) ?? null;
  }

  /**
   * Makes sure the directories above `path` exist as available nodes; returns the id of the
   * innermost one (the file's parent), or null for a path at the association's root.
   */
  async ensureParents(file: Pick<FsNodeRow, "orgId" | "associationId" | "associationType" | "relativePath">, actor: string, now: Date): Promise<string | null> {
    const { parentId, directories } = await this.planParents(file, actor, now);
    await this.insertNodes(directories);
    return parentId;
  }

  /**
   * The directories above `path`: the innermost one's id (null at the root) and the missing ones,
   * new and not yet inserted. They join the cache at once, so a batch's later plans reuse them and
   * the batch inserts them all in one statement.
   */
  async planParents(
    file: Pick<FsNodeRow, "orgId" | "associationId" | "associationType" | "relativePath">,
    actor: string,
    now: Date,
  ): Promise<{ parentId: string | null; directories: FsNodeRow[] }> {
    // One lookup for the directories not seen yet (none after a batch's prefetchPaths).
    await this.prefetchPaths(file.associationId, ancestorDirectories(file.relativePath));
    let parentId: string | null = null;
    const directories: FsNodeRow[] = [];
    for (const dirPath of ancestorDirectories(file.relativePath)) {
      const cacheKey = pathKey(file.associationId, dirPath);
      const existing = this.known.get(cacheKey) ?? null;
      if (existing?.fsType === "file") throw conflict(`${quoteValue(dirPath)} is a file, so it cannot hold ${quoteValue(file.relativePath)}`);
      const dir: FsNodeRow = existing ?? directoryNode(file, dirPath, parentId, actor, now);
      if (!existing) directories.push(dir);
      this.known.set(cacheKey, dir);
      parentId = dir.nodeId;
    }
    return { parentId, directories };
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
   * One keyset page of an association's available files and the exact number of matches (one
   * association's files, which the count reads through its index). With `inheritedFrom`
   * (a device's device type) that association's files join in, except where the first has a file
   * at the same path: a device's own file overrides its type's.
   */
  async search(associationId: string, search: KeysetSearch, inheritedFrom: string | null = null): Promise<KeysetPageRows<FsNodeRow> & { total: number }> {
    const own = sql`f.association_id = ${associationId}`;
    const scope = inheritedFrom === null ? own : sql`(${own} or (f.association_id = ${inheritedFrom} and not exists (
      select 1 from fs_nodes o where o.association_id = ${associationId} and o.relative_path = f.relative_path and o.status = 'available' and o.fs_type = 'file')))`;
    const where = sql`${scope} and f.status = 'available' and f.fs_type = 'file' and ${platformFilesExcluded("f.relative_path")} and (${search.where})`;
    const execute = (query: SqlFragment) => this.em.execute(query.sql, [...query.params]);
    const count = sql`select count(*) as total from ${FILES} where ${where}`;
    const [rows, counts] = await Promise.all([execute(keysetPageSql(rawSql("f.*"), FILES, where, search)), execute(count)]);
    return { ...keysetPageRows(rows, search.limit, fsNodeFromRow), total: Number(counts[0]!["total"]) };
  }

  async deviceIds(orgId: string, fileIds: string[]): Promise<string[]> {
    if (fileIds.length === 0) return [];
    const rows = await this.em.find(FsNode, { orgId, nodeId: { $in: fileIds }, fsType: "file", deviceId: { $ne: null }, ...liveAssociationFilter() }, { fields: ["deviceId"] });
    return [...new Set(rows.map((row) => row.deviceId!))].sort();
  }
}

function pathKey(associationId: string, path: string): string {
  return `${associationId}\u0000${path}`;
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
