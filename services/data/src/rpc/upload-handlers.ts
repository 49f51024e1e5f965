import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, invalidArgument, requireOrg, type Principal, quoteValue } from "@hangar/shared";
import type { Association, DataService } from "@hangar/shared/proto/data";
import { checkUserPath } from "../domain/paths";
import { writesAsPlatform } from "../domain/platform-writers";
import { abortTransactions, beginUpload, completeUpload, datasetPrefix, openUpload, reportUploadProgress } from "../domain/uploads";
import type { AccessMode } from "../object-store/object-store";
import type { ResolvedAssociation } from "../domain/associations";
import { orgOfRecord, writerOfRecord } from "./actors";
import type { FileHandlerDeps } from "./file-deps";
import { credentialsToProto } from "./file-mappers";
import { CREDENTIALS_TTL_SECONDS } from "./uploads";

type UploadHandlers = Pick<
  ServiceImpl<typeof DataService>,
  | "beginBatchUpload"
  | "uploadCredentials"
  | "reportUploadProgress"
  | "completeUpload"
  | "abortTransactions"
  | "beginFileUpload"
  | "beginDatasetUpload"
  | "completeDatasetUpload"
  | "datasetCredentials"
  | "associationCredentials"
>;

/** The upload operations: transactions, credentials, progress, completion and abort. */
export function createUploadHandlers({ uow, objects, resolveAssociation, eventsWritten, builtinInvocations }: FileHandlerDeps): UploadHandlers {
  /** The association an upload targets (a dataset, org, device or device type), checked to be usable by the caller. */
  const uploadTarget = (caller: Principal, association: Pick<Association, "associationId" | "associationType"> | undefined, field: string): Promise<ResolvedAssociation> => {
    if (!association) throw invalidArgument(field, "is required");
    return resolveAssociation(caller, association, `${field}.association_type`);
  };
  const beginSingle = async (caller: Principal, association: { associationId: string; associationType: string }, filePath: string, fileSize: bigint, origination: string) => {
    const target = await uploadTarget(caller, association, "association");
    const platformAction = await writesAsPlatform(builtinInvocations, caller, target.orgId, [filePath]);
    const path = checkUserPath(filePath, "file_path", platformAction);
    const opening = { ...target, subject: caller.subject, origination, deviceId: null, manifest: { [path]: fileSize }, field: "file_path", platformAction };
    const { transaction, items } = await beginUpload(uow, objects, opening);
    const uploadUrl = await objects.presignPut(items[0]!.objectKey, { expiresInSeconds: CREDENTIALS_TTL_SECONDS });
    return { uploadId: transaction.transactionId, uploadUrl };
  };
  const complete = async (caller: Principal, transactionId: string, datasetId?: string) => {
    const completed = await completeUpload(uow, objects, await writerOfRecord(uow, caller, "upload", transactionId), transactionId, datasetId);
    if (completed) eventsWritten();
    return {};
  };

  return {
    async beginBatchUpload(req, ctx) {
      const caller = callerOf(ctx);
      const target = await uploadTarget(caller, req.association, "association");
      const { transaction, items } = await beginUpload(uow, objects, {
        ...target,
        subject: caller.subject,
        origination: req.origination,
        deviceId: req.deviceId ?? null,
        manifest: req.resourceManifest,
        field: "resource_manifest",
        platformAction: await writesAsPlatform(builtinInvocations, caller, target.orgId, Object.keys(req.resourceManifest)),
      });
      const mappings = Object.fromEntries(
        Object.keys(req.resourceManifest).map((raw, i) => [raw, `s3://${objects.location.bucket}/${items[i]!.objectKey}`]),
      );
      return { transactionId: transaction.transactionId, uploadMappings: mappings };
    },

    async uploadCredentials(req, ctx) {
      const transaction = await openUpload(uow, (await writerOfRecord(uow, callerOf(ctx), "upload", req.uploadId)).orgId, req.uploadId);
      const creds = await objects.issueCredentials({ prefix: transaction.prefix, mode: "ReadWrite", ttlSeconds: CREDENTIALS_TTL_SECONDS });
      return { credentials: [credentialsToProto(creds, objects.location)] };
    },

    async reportUploadProgress(req, ctx) {
      const caller = callerOf(ctx);
      const result = await reportUploadProgress(uow, objects, await writerOfRecord(uow, caller, "upload", req.uploadId), req.uploadId, req.manifestItems);
      if (result.done) eventsWritten();
      return { items: result.items };
    },

    async completeUpload(req, ctx) {
      return complete(callerOf(ctx), req.uploadId);
    },

    async completeDatasetUpload(req, ctx) {
      return complete(callerOf(ctx), req.uploadId, req.datasetId);
    },

    async abortTransactions(req, ctx) {
      const keys = await abortTransactions(uow, requireOrg(callerOf(ctx)), req.transactionIds);
      await objects.deleteObjects(keys);
      return {};
    },

    async beginFileUpload(req, ctx) {
      return beginSingle(callerOf(ctx), { associationId: req.association?.associationId ?? "", associationType: req.association?.associationType ?? "" }, req.filePath, req.fileSize, req.origination);
    },

    async beginDatasetUpload(req, ctx) {
      return beginSingle(callerOf(ctx), { associationId: req.datasetId, associationType: "dataset" }, req.filePath, req.fileSize, req.origination ?? "");
    },

    async associationCredentials(req, ctx) {
      const owner = await resolveAssociation(callerOf(ctx), { associationId: req.associationId }, "association_id");
      const creds = await objects.issueCredentials({ prefix: `${owner.orgId}/${owner.associationId}/`, mode: parseMode(req.mode), ttlSeconds: CREDENTIALS_TTL_SECONDS });
      return { credentials: [credentialsToProto(creds, objects.location)] };
    },

    async datasetCredentials(req, ctx) {
      const prefix = await datasetPrefix(uow, await orgOfRecord(uow, callerOf(ctx), "dataset", req.datasetId), req.datasetId);
      const creds = await objects.issueCredentials({ prefix, mode: parseMode(req.mode), ttlSeconds: CREDENTIALS_TTL_SECONDS });
      return { credentials: [credentialsToProto(creds, objects.location)] };
    },
  };
}

/** The credentials' access mode: ReadOnly (the default) or ReadWrite; anything else is a 400 naming `mode`. */
function parseMode(mode: string | undefined): AccessMode {
  if (mode === undefined || mode === "" || mode === "ReadOnly") return "ReadOnly";
  if (mode === "ReadWrite") return "ReadWrite";
  throw invalidArgument("mode", `must be ReadOnly or ReadWrite, got ${quoteValue(mode)}`);
}
