import type { ServiceImpl } from "@connectrpc/connect";
import { badRequest, callerOf, fitPage, readableOrg } from "@hangar/shared";
import type { DataService } from "@hangar/shared/proto/data";
import { FileSchema } from "@hangar/shared/proto/data";
import { checkRelativePath } from "../domain/paths";
import { deleteFile, downloadableUri, getFile, getFileByPath, markFilesIngestable, queryAssociationFiles, updateFile } from "../domain/files";
import { setIngestionPathRules } from "../domain/ingestable";
import { keyOfUri } from "../object-store/object-store";
import { associationTypeOf, routeAssociation } from "../domain/associations";
import { orgOfRecord, serviceCaller } from "./actors";
import type { FileHandlerDeps } from "./file-deps";
import { fileToProto } from "./file-mappers";
import { CREDENTIALS_TTL_SECONDS } from "./uploads";

type FileHandlers = Pick<ServiceImpl<typeof DataService>, "getFile" | "getFileByPath" | "updateFile" | "deleteFile" | "getSignedUrl" | "queryDatasetFiles" | "markFilesIngestable" | "setIngestionPathRules">;

/** The file record operations: read by id or path (at a version), update, delete, download URL, listing. */
export function createFileHandlers({ uow, objects, resolveAssociation, eventsWritten }: FileHandlerDeps): FileHandlers {
  return {
    async markFilesIngestable(req, ctx) {
      await markFilesIngestable(uow, readableOrg(serviceCaller(callerOf(ctx))), req.files);
      return {};
    },

    async setIngestionPathRules(req, ctx) {
      const changed = await setIngestionPathRules(uow, readableOrg(serviceCaller(callerOf(ctx))), req.rules, new Date(Number(req.asOfMs)));
      return { changedFiles: BigInt(changed) };
    },

    async getFile(req, ctx) {
      return { file: fileToProto(await getFile(uow, await orgOfRecord(uow, callerOf(ctx), "file", req.fileId), req.fileId, req.versionId)) };
    },

    async getFileByPath(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = readableOrg(caller);
      const path = checkRelativePath(req.urlQuotedFilePath, "url_quoted_file_path");
      // Files are stored under a device's universal id: a device named by its device_id is looked up first.
      const byDevice = associationTypeOf(req, "association_type") === "device";
      const associationId = byDevice ? (await resolveAssociation(caller, req, "association_type")).associationId : req.associationId;
      const file = await getFileByPath(uow, { orgId, associationId, path, label: `${req.associationId}:${path}` }, req.versionId);
      return { file: fileToProto(file) };
    },

    async updateFile(req, ctx) {
      const caller = callerOf(ctx);
      const file = await updateFile(uow, { orgId: readableOrg(caller), subject: caller.subject }, req);
      eventsWritten();
      return { file: fileToProto(file) };
    },

    async deleteFile(req, ctx) {
      const keys = await deleteFile(uow, readableOrg(callerOf(ctx)), req.fileId);
      await objects.deleteObjects(keys);
      return {};
    },

    async getSignedUrl(req, ctx) {
      const uri = await downloadableUri(uow, await orgOfRecord(uow, callerOf(ctx), "file", req.fileId), req.fileId);
      const url = await objects.presignGet(keyOfUri(uri), {
        expiresInSeconds: CREDENTIALS_TTL_SECONDS,
        ...(req.overrideContentDisposition ? { contentDisposition: req.overrideContentDisposition } : {}),
        ...(req.overrideContentType ? { contentType: req.overrideContentType } : {}),
      });
      return { url };
    },

    async queryDatasetFiles(req, ctx) {
      const ref = routeAssociation(req);
      if (req.includeInherited && associationTypeOf(ref, "association_type") !== "device") {
        throw badRequest("include_inherited: only a device's files can include inherited ones");
      }
      const target = await resolveAssociation(callerOf(ctx), ref, "association_type");
      const inheritedFrom = req.includeInherited ? target.deviceTypeId : null;
      const page = await queryAssociationFiles(uow, { associationId: target.associationId, inheritedFrom }, req);
      // The next page starts after the last file kept: fitPage may keep fewer than were read.
      const items = fitPage(FileSchema, page.rows.map(fileToProto));
      const nextToken = page.nextToken(items.length);
      return { items, totalCount: BigInt(page.total), ...(nextToken ? { nextToken } : {}) };
    },
  };
}
