import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, invalidArgument, readableOrg, requireOrg } from "@hangar/shared";
import type { DataService } from "@hangar/shared/proto/data";
import { createLink } from "../domain/file-links";
import { applyImports, fileDeviceIds, linkFile, MAX_DEVICE_ID_FILES, planImport, planImports } from "../domain/imports";
import type { FileHandlerDeps } from "./file-deps";
import { fileToProto } from "./file-mappers";

type ImportHandlers = Pick<ServiceImpl<typeof DataService>, "importFile" | "importFiles" | "linkFile" | "createLink" | "fileDeviceIds">;

/**
 * Files whose bytes already exist: imports of objects in the platform's bucket, links to another
 * file's version (a dataset's copy-like link, and the SDK 0.62 pointer link), and the devices a set
 * of files came from.
 */
export function createImportHandlers({ uow, objects, resolveAssociation }: FileHandlerDeps): ImportHandlers {
  return {
    async importFile(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = requireOrg(caller);
      const plan = await planImport(objects, orgId, req, "");
      const [file] = await applyImports(uow, orgId, [plan], caller.subject);
      return { file: fileToProto(file!) };
    },

    async importFiles(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = requireOrg(caller);
      const plans = await planImports(objects, orgId, req.requests);
      const files = await applyImports(uow, orgId, plans, caller.subject);
      return { files: files.map(fileToProto) };
    },

    async linkFile(req, ctx) {
      const caller = callerOf(ctx);
      return { file: fileToProto(await linkFile(uow, requireOrg(caller), req, caller.subject)) };
    },

    async createLink(req, ctx) {
      const caller = callerOf(ctx);
      const owner = await resolveAssociation(caller, { associationId: req.associationId }, "association_id");
      return { file: fileToProto(await createLink(uow, owner, req, caller.subject)) };
    },

    async fileDeviceIds(req, ctx) {
      if (req.fileIds.length > MAX_DEVICE_ID_FILES) throw invalidArgument("file_ids", `must name at most ${MAX_DEVICE_ID_FILES} files`);
      return { deviceIds: await fileDeviceIds(uow, readableOrg(callerOf(ctx)), req.fileIds) };
    },
  };
}
