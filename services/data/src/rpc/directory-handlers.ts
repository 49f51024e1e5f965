import type { ServiceImpl } from "@connectrpc/connect";
import {
  callerOf,
  conflict,
  decodeCursorToken,
  encodeCursorToken,
  fittingCount,
  protobufSize,
  invalidArgument,
  notFound,
  queryFingerprint,
  resolveLimit,
  type Principal,
  type PageCursor,
  type ServiceContext,
  quoteValue,
} from "@hangar/shared";
import { DirectorySchema, FileSchema, type DataService } from "@hangar/shared/proto/data";
import { ancestorDirectories, baseName, checkRelativePath } from "../domain/paths";
import type { ObjectStore } from "../object-store/object-store";
import type { FsNodeRow } from "../store/file-entities";
import { FileStore } from "../store/file-store";
import { TreeStore, type ChildCursor } from "../store/tree-store";
import { resolveAssociation, routeAssociation, type ResolvedAssociation, type RoutedRequest } from "../domain/associations";
import { bindDataRepositories } from "../store/repositories";
import { directoryToProto } from "./directory-mappers";
import { fileToProto } from "./file-mappers";

type DirectoryHandlers = Pick<
  ServiceImpl<typeof DataService>,
  "createDirectory" | "renameDirectory" | "deleteDirectories" | "countDirectoryFiles" | "listDirectory" | "listDirectoryPaths" | "listAssociationFiles" | "listAssociationDirectoryEntries"
>;

/** Reads a directory path parameter: `/`, `.` or empty mean the association's root (""). */
export function directoryPath(raw: string, field: string): string {
  const trimmed = raw.replace(/^\/+|\/+$/g, "");
  return trimmed === "" || trimmed === "." ? "" : checkRelativePath(trimmed, field);
}

/** The directory operations: create, rename (with everything below), delete, list, count and paths. */
export function createDirectoryHandlers(context: ServiceContext, objects: ObjectStore): DirectoryHandlers {
  const fork = () => new FileStore(context.orm.em.fork());
  /** The association a request names (dataset route or association route), checked to be usable by the caller. */
  const association = (store: FileStore, caller: Principal, req: RoutedRequest): Promise<ResolvedAssociation> =>
    resolveAssociation(bindDataRepositories(store.em), caller, routeAssociation(req), "association_type");
  const directoryAt = async (store: FileStore, associationId: string, path: string, field: string): Promise<FsNodeRow | null> => {
    if (path === "") return null;
    const node = await store.findAvailableAtPath(associationId, path);
    if (!node || node.fsType !== "directory") throw notFound("directory", path || field);
    return node;
  };

  return {
    async createDirectory(req, ctx) {
      const caller = callerOf(ctx);
      return fork().em.transactional(async (em) => {
        const store = new FileStore(em);
        const target = await association(store, caller, req);
        const name = checkRelativePath(req.name, "name");
        if (name.includes("/")) throw invalidArgument("name", "must be a single name; use parent_path for the location");
        const parentPath = directoryPath(req.parentPath ?? "", "parent_path");
        const path = parentPath === "" ? name : `${parentPath}/${name}`;
        await store.lockAssociation(target.associationId);
        const existing = await store.findAvailableAtPath(target.associationId, path);
        if (existing?.fsType === "file") throw conflict(`${quoteValue(path)} is a file`);
        if (existing) {
          if (req.errorIfExists) throw conflict(`directory ${quoteValue(path)} already exists`);
          return { directory: directoryToProto(existing) };
        }
        if (parentPath !== "" && !req.createIntermediateDirs && !(await store.findAvailableAtPath(target.associationId, parentPath))) {
          throw notFound("parent directory", parentPath);
        }
        // The directories above a child of `path` are `path` and its ancestors: one call creates them all.
        const directoryId = await store.ensureParents({ ...target, relativePath: `${path}/-` }, caller.subject, new Date());
        const created = (await store.findNode(target.orgId, directoryId!))!;
        created.origination = req.origination ?? "";
        return { directory: directoryToProto(created) };
      });
    },

    async renameDirectory(req, ctx) {
      const caller = callerOf(ctx);
      return fork().em.transactional(async (em) => {
        const store = new FileStore(em);
        const target = await association(store, caller, req);
        const from = checkRelativePath(req.oldPath, "old_path");
        const to = checkRelativePath(req.newPath, "new_path");
        if (to === from || to.startsWith(`${from}/`)) throw invalidArgument("new_path", "must not be the directory itself or below it");
        await store.lockAssociation(target.associationId);
        const dir = await directoryAt(store, target.associationId, from, "old_path");
        if (await store.findAvailableAtPath(target.associationId, to)) throw conflict(`${quoteValue(to)} already exists`);
        const parents = ancestorDirectories(to);
        const parentPath = parents[parents.length - 1] ?? "";
        const parent = parentPath === "" ? null : await store.findAvailableAtPath(target.associationId, parentPath);
        if (parentPath !== "" && parent?.fsType !== "directory") throw notFound("directory", parentPath);
        await new TreeStore(store).movePrefix(target.associationId, from, to, caller.subject);
        Object.assign(dir!, { relativePath: to, name: baseName(to), parentId: parent?.nodeId ?? null, modified: new Date(), modifiedBy: caller.subject });
        return { directory: directoryToProto(dir!) };
      });
    },

    async deleteDirectories(req, ctx) {
      const caller = callerOf(ctx);
      if (req.directoryPaths.length === 0) throw invalidArgument("directory_paths", "must name at least one directory");
      const keys = await fork().em.transactional(async (em) => {
        const store = new FileStore(em);
        const target = await association(store, caller, req);
        const tree = new TreeStore(store);
        const doomed: FsNodeRow[] = [];
        for (const [i, raw] of req.directoryPaths.entries()) {
          const path = checkRelativePath(raw, `directory_paths[${i}]`);
          const dir = await store.findAvailableAtPath(target.associationId, path);
          if (!dir || dir.fsType !== "directory") throw invalidArgument(`directory_paths[${i}]`, `directory ${quoteValue(path)} not found`);
          doomed.push(dir, ...(await tree.below(target.associationId, path)));
        }
        const uris = await store.urisOfAll(doomed.filter((node) => node.fsType === "file").map((node) => node.nodeId));
        await store.deleteNodes(doomed.map((node) => node.nodeId));
        return store.unreferencedKeys(uris);
      });
      await objects.deleteObjects(keys);
      return {};
    },

    async countDirectoryFiles(req, ctx) {
      const store = fork();
      const target = await association(store, callerOf(ctx), req);
      const path = directoryPath(req.directoryPath, "directory_path");
      await directoryAt(store, target.associationId, path, "directory_path");
      return { count: BigInt(await new TreeStore(store).countFiles(target.associationId, path, req.showHiddenFiles)) };
    },

    async listDirectory(req, ctx) {
      const store = fork();
      const target = await association(store, callerOf(ctx), req);
      const path = directoryPath(req.directoryPath, "directory_path");
      const dir = await directoryAt(store, target.associationId, path, "directory_path");
      const limit = resolveLimit(req.pageSize, "page_size");
      const fingerprint = queryFingerprint({ scope: { association: target.associationId, path, hidden: req.showHiddenFiles } });
      const after = childCursor(decodeCursorToken(req.pageToken, fingerprint, "page_token"));
      const rows = await new TreeStore(store).children(target.associationId, dir?.nodeId ?? null, req.showHiddenFiles, limit + 1, after);
      const listed = rows.slice(0, limit);
      // Files may carry large metadata: the page keeps the leading entries that fit the response,
      // and the next page starts after the last entry KEPT.
      const page = listed.slice(0, fittingCount(listed, (n) => (n.fsType === "file" ? protobufSize(FileSchema, fileToProto(n)) : protobufSize(DirectorySchema, directoryToProto(n)))));
      const last = page[page.length - 1];
      return {
        files: page.filter((n) => n.fsType === "file").map(fileToProto),
        directories: page.filter((n) => n.fsType === "directory").map(directoryToProto),
        ...(rows.length > page.length && last ? { nextToken: encodeCursorToken({ key: `${last.fsType}/${last.name}`, id: last.nodeId }, fingerprint) } : {}),
      };
    },

    async listDirectoryPaths(req, ctx) {
      const store = fork();
      const target = await association(store, callerOf(ctx), req);
      const path = directoryPath(req.directoryPath, "directory_path");
      await directoryAt(store, target.associationId, path, "directory_path");
      const files = await new TreeStore(store).below(target.associationId, path, { filesOnly: true });
      return { paths: files.map((f) => f.relativePath) };
    },

    async listAssociationFiles(req, ctx) {
      const store = fork();
      const target = await association(store, callerOf(ctx), req);
      const files = await new TreeStore(store).below(target.associationId, "", { filesOnly: true });
      return { files: files.map(fileToProto) };
    },

    async listAssociationDirectoryEntries(req, ctx) {
      const store = fork();
      const target = await association(store, callerOf(ctx), req);
      const limit = resolveLimit(req.pageSize, "page_size");
      const fingerprint = queryFingerprint({ scope: { directories: target.associationId } });
      const after = decodeCursorToken(req.pageToken, fingerprint, "page_token");
      const tree = new TreeStore(store);
      const [rows, total] = await Promise.all([tree.directories(target.associationId, limit + 1, after?.key ?? undefined), tree.countDirectories(target.associationId)]);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const next = rows.length > limit && last ? encodeCursorToken({ key: last.relativePath, id: last.nodeId }, fingerprint) : undefined;
      return { items: page.map(directoryToProto), totalCount: BigInt(total), ...(next ? { nextToken: next } : {}) };
    },
  };
}

/** The child a directory listing's page token names: its key is `<fs_type>/<name>` (names hold no slash). */
function childCursor(cursor: PageCursor | undefined): ChildCursor | undefined {
  if (!cursor) return undefined;
  const slash = cursor.key?.indexOf("/") ?? -1;
  if (slash < 0) throw invalidArgument("page_token", "is not a valid page token");
  return { fsType: cursor.key!.slice(0, slash) as ChildCursor["fsType"], name: cursor.key!.slice(slash + 1), nodeId: cursor.id };
}
