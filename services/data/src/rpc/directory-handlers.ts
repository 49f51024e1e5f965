import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, fittingCount, invalidArgument, protobufSize, type Principal } from "@hangar/shared";
import { DirectorySchema, FileSchema, type DataService } from "@hangar/shared/proto/data";
import {
  associationDirectories,
  associationFiles,
  countDirectoryFiles,
  createDirectory,
  deleteDirectories,
  directoryFilePaths,
  listDirectory,
  renameDirectory,
} from "../domain/directories";
import type { FsNodeRow } from "../domain/file-records";
import { routeAssociation, type ResolvedAssociation, type RoutedRequest } from "../domain/associations";
import { directoryToProto } from "./directory-mappers";
import type { FileHandlerDeps } from "./file-deps";
import { fileToProto } from "./file-mappers";

type DirectoryHandlers = Pick<
  ServiceImpl<typeof DataService>,
  "createDirectory" | "renameDirectory" | "deleteDirectories" | "countDirectoryFiles" | "listDirectory" | "listDirectoryPaths" | "listAssociationFiles" | "listAssociationDirectoryEntries"
>;

/** The directory operations: create, rename (with everything below), delete, list, count and paths. */
export function createDirectoryHandlers({ uow, objects, resolveAssociation }: FileHandlerDeps): DirectoryHandlers {
  /** The association a request names (dataset route or association route), checked to be usable by the caller. */
  const association = (caller: Principal, req: RoutedRequest): Promise<ResolvedAssociation> => resolveAssociation(caller, routeAssociation(req), "association_type");

  return {
    async createDirectory(req, ctx) {
      const caller = callerOf(ctx);
      const target = await association(caller, req);
      return { directory: directoryToProto(await createDirectory(uow, target, req, caller.subject)) };
    },

    async renameDirectory(req, ctx) {
      const caller = callerOf(ctx);
      const target = await association(caller, req);
      return { directory: directoryToProto(await renameDirectory(uow, target, req.oldPath, req.newPath, caller.subject)) };
    },

    async deleteDirectories(req, ctx) {
      if (req.directoryPaths.length === 0) throw invalidArgument("directory_paths", "must name at least one directory");
      const target = await association(callerOf(ctx), req);
      await objects.deleteObjects(await deleteDirectories(uow, target, req.directoryPaths));
      return {};
    },

    async countDirectoryFiles(req, ctx) {
      const target = await association(callerOf(ctx), req);
      return { count: BigInt(await countDirectoryFiles(uow, target.associationId, req.directoryPath, req.showHiddenFiles)) };
    },

    async listDirectory(req, ctx) {
      const target = await association(callerOf(ctx), req);
      const listed = await listDirectory(uow, target.associationId, req);
      // Files may carry large metadata: the page keeps the leading entries that fit the response,
      // and the next page starts after the last entry KEPT.
      const page = listed.children.slice(0, fittingCount(listed.children, wireSize));
      const nextToken = listed.nextToken(page.length);
      return {
        files: page.filter((n) => n.fsType === "file").map(fileToProto),
        directories: page.filter((n) => n.fsType === "directory").map(directoryToProto),
        ...(nextToken ? { nextToken } : {}),
      };
    },

    async listDirectoryPaths(req, ctx) {
      const target = await association(callerOf(ctx), req);
      return { paths: await directoryFilePaths(uow, target.associationId, req.directoryPath) };
    },

    async listAssociationFiles(req, ctx) {
      const target = await association(callerOf(ctx), req);
      return { files: (await associationFiles(uow, target.associationId)).map(fileToProto) };
    },

    async listAssociationDirectoryEntries(req, ctx) {
      const target = await association(callerOf(ctx), req);
      const { directories, total, nextToken } = await associationDirectories(uow, target.associationId, req);
      return { items: directories.map(directoryToProto), totalCount: BigInt(total), ...(nextToken ? { nextToken } : {}) };
    },
  };
}

/** A directory entry's size on the wire, as the record it is sent as. */
function wireSize(node: FsNodeRow): number {
  return node.fsType === "file" ? protobufSize(FileSchema, fileToProto(node)) : protobufSize(DirectorySchema, directoryToProto(node));
}
