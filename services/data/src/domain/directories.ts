import {
  conflict,
  decodeCursorToken,
  encodeCursorToken,
  invalidArgument,
  notFound,
  queryFingerprint,
  quoteValue,
  resolveLimit,
  type PageCursor,
  type UnitOfWork,
} from "@hangar/shared";
import type { FsNodeRow } from "./file-records";
import type { ChildCursor, FileRepository } from "./file-repositories";
import { ancestorDirectories, baseName, checkRelativePath, checkUserPath } from "./paths";
import type { DataRepositories } from "./repositories";

/** The repositories of the directory use cases. */
export type DirectoryRepositories = Pick<DataRepositories, "files" | "tree">;

/** The association (and its org) a directory operation works in, already checked to be usable by the caller. */
export interface FileOwner {
  orgId: string;
  associationId: string;
  associationType: string;
}

/** Reads a directory path parameter: `/`, `.` or empty mean the association's root (""). */
export function directoryPath(raw: string, field: string): string {
  const trimmed = raw.replace(/^\/+|\/+$/g, "");
  return trimmed === "" || trimmed === "." ? "" : checkRelativePath(trimmed, field);
}

/** The directory at `path` (null for the root ""); anything else there, or nothing, is a 404. */
async function directoryAt(files: FileRepository, associationId: string, path: string, field: string): Promise<FsNodeRow | null> {
  if (path === "") return null;
  const node = await files.findAvailableAtPath(associationId, path);
  if (!node || node.fsType !== "directory") throw notFound("directory", path || field);
  return node;
}

/** What create_directory is asked: a single name below a parent path, and what to do when it exists. */
export interface DirectoryCreation {
  name: string;
  parentPath?: string | undefined;
  createIntermediateDirs: boolean;
  errorIfExists: boolean;
  origination?: string | undefined;
}

/**
 * create_directory: the directory `name` below `parent_path`, with the missing directories above
 * it when `create_intermediate_dirs` (else a missing parent is a 404). An existing directory is
 * answered as it is, or a 409 with `error_if_exists`; a file at the path is a 409.
 */
export async function createDirectory(uow: UnitOfWork<DirectoryRepositories>, owner: FileOwner, creation: DirectoryCreation, actor: string): Promise<FsNodeRow> {
  return uow.transaction(async ({ files }) => {
    const name = checkRelativePath(creation.name, "name");
    if (name.includes("/")) throw invalidArgument("name", "must be a single name; use parent_path for the location");
    const parentPath = directoryPath(creation.parentPath ?? "", "parent_path");
    if (parentPath === "") checkUserPath(name, "name");
    else checkUserPath(parentPath, "parent_path");
    const path = parentPath === "" ? name : `${parentPath}/${name}`;
    await files.lockAssociation(owner.associationId);
    const existing = await files.findAvailableAtPath(owner.associationId, path);
    if (existing?.fsType === "file") throw conflict(`${quoteValue(path)} is a file`);
    if (existing) {
      if (creation.errorIfExists) throw conflict(`directory ${quoteValue(path)} already exists`);
      return existing;
    }
    if (parentPath !== "" && !creation.createIntermediateDirs && !(await files.findAvailableAtPath(owner.associationId, parentPath))) {
      throw notFound("parent directory", parentPath);
    }
    // The directories above a child of `path` are `path` and its ancestors: one call creates them all.
    const directoryId = await files.ensureParents({ ...owner, relativePath: `${path}/-` }, actor, new Date());
    const created = (await files.findNode(owner.orgId, directoryId!))!;
    created.origination = creation.origination ?? "";
    return created;
  });
}

/**
 * rename_directory: moves a directory and everything below it to `newPath`, whose parent must be
 * an existing directory (or the root). The new path may not be taken, nor lie below the old one.
 */
export async function renameDirectory(uow: UnitOfWork<DirectoryRepositories>, owner: FileOwner, oldPath: string, newPath: string, actor: string): Promise<FsNodeRow> {
  return uow.transaction(async ({ files, tree }) => {
    const from = checkRelativePath(oldPath, "old_path");
    const to = checkUserPath(newPath, "new_path");
    if (to === from || to.startsWith(`${from}/`)) throw invalidArgument("new_path", "must not be the directory itself or below it");
    await files.lockAssociation(owner.associationId);
    const dir = await directoryAt(files, owner.associationId, from, "old_path");
    if (await files.findAvailableAtPath(owner.associationId, to)) throw conflict(`${quoteValue(to)} already exists`);
    const parents = ancestorDirectories(to);
    const parentPath = parents[parents.length - 1] ?? "";
    const parent = parentPath === "" ? null : await files.findAvailableAtPath(owner.associationId, parentPath);
    if (parentPath !== "" && parent?.fsType !== "directory") throw notFound("directory", parentPath);
    await tree.movePrefix(owner.associationId, from, to, actor);
    return Object.assign(dir!, { relativePath: to, name: baseName(to), parentId: parent?.nodeId ?? null, modified: new Date(), modifiedBy: actor });
  });
}

/**
 * delete_directories: deletes the directories at `paths` with everything below them, all or
 * nothing (a path that is not a directory is a 400 naming its index). Returns the object keys
 * nothing points at any more, for the caller to delete after the commit.
 */
export async function deleteDirectories(uow: UnitOfWork<DirectoryRepositories>, owner: FileOwner, paths: string[]): Promise<string[]> {
  return uow.transaction(async ({ files, tree }) => {
    const doomed: FsNodeRow[] = [];
    for (const [i, raw] of paths.entries()) {
      const path = checkRelativePath(raw, `directory_paths[${i}]`);
      const dir = await files.findAvailableAtPath(owner.associationId, path);
      if (!dir || dir.fsType !== "directory") throw invalidArgument(`directory_paths[${i}]`, `directory ${quoteValue(path)} not found`);
      doomed.push(dir, ...(await tree.below(owner.associationId, path)));
    }
    const uris = await files.urisOfAll(doomed.filter((node) => node.fsType === "file").map((node) => node.nodeId));
    await files.deleteNodes(doomed.map((node) => node.nodeId));
    return files.unreferencedKeys(uris);
  });
}

/** count_directory_files: the files below a directory (the root for "", "/" or "."), hidden ones only when asked. */
export async function countDirectoryFiles(uow: UnitOfWork<DirectoryRepositories>, associationId: string, rawPath: string, showHidden: boolean): Promise<number> {
  const { files, tree } = uow.repositories();
  const path = directoryPath(rawPath, "directory_path");
  await directoryAt(files, associationId, path, "directory_path");
  return tree.countFiles(associationId, path, showHidden);
}

/** What list_directory is asked. */
export interface DirectoryListing {
  directoryPath: string;
  showHiddenFiles: boolean;
  pageSize?: bigint | number | undefined;
  pageToken?: string | undefined;
}

/** A page of a directory's children; `nextToken(kept)` continues after the first `kept` (a response may keep fewer). */
export interface DirectoryPage {
  children: FsNodeRow[];
  nextToken(kept: number): string | undefined;
}

/** list_directory: one page of a directory's direct children, directories first, then files, each by name. */
export async function listDirectory(uow: UnitOfWork<DirectoryRepositories>, associationId: string, listing: DirectoryListing): Promise<DirectoryPage> {
  const { files, tree } = uow.repositories();
  const path = directoryPath(listing.directoryPath, "directory_path");
  const dir = await directoryAt(files, associationId, path, "directory_path");
  const limit = resolveLimit(listing.pageSize, "page_size");
  const fingerprint = queryFingerprint({ scope: { association: associationId, path, hidden: listing.showHiddenFiles } });
  const after = childCursor(decodeCursorToken(listing.pageToken, fingerprint, "page_token"));
  const rows = await tree.children(associationId, dir?.nodeId ?? null, listing.showHiddenFiles, limit + 1, after);
  const children = rows.slice(0, limit);
  const nextToken = (kept: number): string | undefined => {
    const last = children[kept - 1];
    return rows.length > kept && last ? encodeCursorToken({ key: `${last.fsType}/${last.name}`, id: last.nodeId }, fingerprint) : undefined;
  };
  return { children, nextToken };
}

/** The child a directory listing's page token names: its key is `<fs_type>/<name>` (names hold no slash). */
function childCursor(cursor: PageCursor | undefined): ChildCursor | undefined {
  if (!cursor) return undefined;
  const slash = cursor.key?.indexOf("/") ?? -1;
  if (slash < 0) throw invalidArgument("page_token", "is not a valid page token");
  return { fsType: cursor.key!.slice(0, slash) as ChildCursor["fsType"], name: cursor.key!.slice(slash + 1), nodeId: cursor.id };
}

/** list_directory_paths: the paths of the files below a directory (the root for "", "/" or "."), by path. */
export async function directoryFilePaths(uow: UnitOfWork<DirectoryRepositories>, associationId: string, rawPath: string): Promise<string[]> {
  const { files, tree } = uow.repositories();
  const path = directoryPath(rawPath, "directory_path");
  await directoryAt(files, associationId, path, "directory_path");
  return (await tree.below(associationId, path, { filesOnly: true })).map((f) => f.relativePath);
}

/** list_association_files: every available file of an association, by path. */
export async function associationFiles(uow: UnitOfWork<DirectoryRepositories>, associationId: string): Promise<FsNodeRow[]> {
  return uow.repositories().tree.below(associationId, "", { filesOnly: true });
}

/** One page of an association's directories by path, and how many it has. */
export async function associationDirectories(
  uow: UnitOfWork<DirectoryRepositories>,
  associationId: string,
  page: { pageSize?: bigint | number | undefined; pageToken?: string | undefined },
): Promise<{ directories: FsNodeRow[]; total: number; nextToken: string | undefined }> {
  const limit = resolveLimit(page.pageSize, "page_size");
  const fingerprint = queryFingerprint({ scope: { directories: associationId } });
  const after = decodeCursorToken(page.pageToken, fingerprint, "page_token");
  const { tree } = uow.repositories();
  const [rows, total] = await Promise.all([tree.directories(associationId, limit + 1, after?.key ?? undefined), tree.countDirectories(associationId)]);
  const directories = rows.slice(0, limit);
  const last = directories[directories.length - 1];
  const nextToken = rows.length > limit && last ? encodeCursorToken({ key: last.relativePath, id: last.nodeId }, fingerprint) : undefined;
  return { directories, total, nextToken };
}
