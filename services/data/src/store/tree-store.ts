import { sql, textArrayLiteral, type SqlFragment } from "@hangar/shared";
import type { FsNodeRow } from "../domain/file-records";
import type { ChildCursor, NodePlace, TreeRepository } from "../domain/file-repositories";
import { platformFilesExcluded } from "./platform-files";
import { fsNodeFromRow } from "./file-entities";
import { ingestableVersionSql } from "./ingestable-sql";
import type { FileStore } from "./file-store";

/**
 * Subtree reads and moves over `fs_nodes`: a node's descendants are the available nodes whose path
 * starts with its path and a slash (the `text_pattern_ops` index serves the prefix match).
 */
export class TreeStore implements TreeRepository {
  constructor(private readonly files: FileStore) {}

  /** Available nodes below `path` (all when `path` is the root ""), optionally files only, sorted by path. */
  async below(associationId: string, path: string, options: { filesOnly?: boolean; showHidden?: boolean } = {}): Promise<FsNodeRow[]> {
    const query = sql`select * from fs_nodes where association_id = ${associationId} and status = 'available' and ${underPath(path)}
      ${options.filesOnly ? sql`and fs_type = 'file' and ${platformFilesExcluded()}` : sql``} ${options.showHidden === false ? hiddenExcluded(path) : sql``}
      order by relative_path`;
    const rows = await this.files.em.execute(query.sql, [...query.params]);
    return rows.map(fsNodeFromRow);
  }

  /** One page of an association's directories by path; with `afterPath`, those after it. */
  async directories(associationId: string, limit: number, afterPath: string | undefined): Promise<FsNodeRow[]> {
    const query = sql`select * from fs_nodes where association_id = ${associationId} and status = 'available' and fs_type = 'directory' and ${platformFilesExcluded()}
      ${afterPath === undefined ? sql`` : sql`and relative_path > ${afterPath}`} order by relative_path limit ${limit}`;
    const rows = await this.files.em.execute(query.sql, [...query.params]);
    return rows.map(fsNodeFromRow);
  }

  /** Counts the available directories of an association. */
  async countDirectories(associationId: string): Promise<number> {
    const query = sql`select count(*) as n from fs_nodes where association_id = ${associationId} and status = 'available' and fs_type = 'directory' and ${platformFilesExcluded()}`;
    const rows = await this.files.em.execute<{ n: string }[]>(query.sql, [...query.params]);
    return Number(rows[0]!.n);
  }

  /** Counts the available files below `path`. */
  async countFiles(associationId: string, path: string, showHidden: boolean): Promise<number> {
    const query = sql`select count(*) as n from fs_nodes where association_id = ${associationId} and status = 'available' and fs_type = 'file'
      and ${underPath(path)} and ${platformFilesExcluded()} ${showHidden ? sql`` : hiddenExcluded(path)}`;
    const rows = await this.files.em.execute<{ n: string }[]>(query.sql, [...query.params]);
    return Number(rows[0]!.n);
  }

  /**
   * One page of a directory's direct children: directories first, then files, each by name; with
   * `after` (the last child served), those that follow it.
   */
  async children(associationId: string, parentId: string | null, showHidden: boolean, limit: number, after?: FsNodeRow | ChildCursor): Promise<FsNodeRow[]> {
    const parent = parentId === null ? sql`parent_id is null` : sql`parent_id = ${parentId}`;
    const query = sql`select * from fs_nodes where association_id = ${associationId} and status = 'available' and ${parent} and ${platformFilesExcluded()}
      ${showHidden ? sql`` : sql`and name not like '.%'`}
      ${after ? sql`and (fs_type, name, node_id) > (${after.fsType}, ${after.name}, ${after.nodeId})` : sql``}
      order by fs_type, name, node_id limit ${limit}`;
    const rows = await this.files.em.execute(query.sql, [...query.params]);
    return rows.map(fsNodeFromRow);
  }

  /** Nodes of an org by id, untracked (one query), leaving out those whose owner was deleted. */
  async byIds(orgId: string, nodeIds: readonly string[]): Promise<FsNodeRow[]> {
    return [...(await this.files.nodesByIds(orgId, nodeIds)).values()];
  }

  /** The available nodes below any of `paths` (one query; each prefix is read as `below` reads one). */
  async subtrees(associationId: string, paths: readonly string[]): Promise<FsNodeRow[]> {
    if (paths.length === 0) return [];
    const rows = await this.files.em.execute(
      `select n.* from unnest(?::text[]) as p(prefix)
       join lateral (select * from fs_nodes where association_id = ? and status = 'available' and starts_with(relative_path, p.prefix || '/')) n on true`,
      [textArrayLiteral(paths), associationId],
    );
    return rows.map(fsNodeFromRow);
  }

  /**
   * Writes nodes' new places in one statement (an update from arrays), marking them modified now by
   * `actor`; the statement recomputes each file's `ingestable` at its new path.
   */
  async relocate(places: readonly NodePlace[], actor: string): Promise<void> {
    if (places.length === 0) return;
    await this.files.em.execute(
      `update fs_nodes n set relative_path = p.path, name = p.name, parent_id = nullif(p.parent_id, ''), modified = now(), modified_by = ?,
         ingestable_version = ${ingestableVersionSql("n", "p.path")}
       from unnest(?::text[], ?::text[], ?::text[], ?::text[]) as p(node_id, path, name, parent_id) where n.node_id = p.node_id`,
      [
        actor,
        textArrayLiteral(places.map((p) => p.nodeId)),
        textArrayLiteral(places.map((p) => p.relativePath)),
        textArrayLiteral(places.map((p) => p.name)),
        // Node ids are never empty, so '' stands for a null parent (an array literal has no null of its own here).
        textArrayLiteral(places.map((p) => p.parentId ?? "")),
      ],
    );
  }

  /** Rewrites the paths below `from` to sit below `to` (after the node at `from` itself moved), recomputing each file's `ingestable` at its new path. */
  async movePrefix(associationId: string, from: string, to: string, actor: string): Promise<void> {
    await this.files.em.execute(
      `update fs_nodes n set relative_path = m.path, modified = now(), modified_by = ?, ingestable_version = ${ingestableVersionSql("n", "m.path")}
       from (select node_id, ? || substr(relative_path, ?) as path from fs_nodes
             where association_id = ? and status = 'available' and starts_with(relative_path, ?)) m
       where n.node_id = m.node_id`,
      [actor, to, from.length + 1, associationId, `${from}/`],
    );
  }

  /**
   * Moves every available node of one association to the root of another (same paths). A
   * directory present in both is merged: the moving one's children join the existing one. Any
   * other path present in both is returned and nothing moves; the caller holds both path locks.
   */
  async moveAssociation(from: string, to: { associationId: string; associationType: string }, actor: string): Promise<{ clash: string | null }> {
    const clashes = await this.files.em.execute<{ relative_path: string; node_id: string; into_id: string; both_directories: boolean }[]>(
      `select m.relative_path, m.node_id, e.node_id as into_id, (m.fs_type = 'directory' and e.fs_type = 'directory') as both_directories
       from fs_nodes m join fs_nodes e on e.association_id = ? and e.relative_path = m.relative_path and e.status = 'available'
       where m.association_id = ? and m.status = 'available' order by m.relative_path`,
      [to.associationId, from],
    );
    const clash = clashes.find((c) => !c.both_directories);
    if (clash) return { clash: clash.relative_path };
    for (const merged of clashes) {
      await this.files.em.execute("update fs_nodes set parent_id = ? where association_id = ? and parent_id = ?", [merged.into_id, from, merged.node_id]);
      await this.files.em.execute("delete from fs_nodes where node_id = ?", [merged.node_id]);
    }
    await this.files.em.execute(
      "update fs_nodes set association_id = ?, association_type = ?, modified = now(), modified_by = ? where association_id = ? and status = 'available'",
      [to.associationId, to.associationType, actor, from],
    );
    return { clash: null };
  }
}

function underPath(path: string): SqlFragment {
  return path === "" ? sql`true` : sql`starts_with(relative_path, ${`${path}/`})`;
}

/** Leaves out nodes with a segment below `path` that starts with a dot. */
function hiddenExcluded(path: string): SqlFragment {
  const rest = path === "" ? sql`relative_path` : sql`substr(relative_path, ${path.length + 2})`;
  return sql`and not (${rest} ~ '(^|/)\\.')`;
}
