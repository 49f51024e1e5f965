import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, conflict, invalidArgument, notFound, readableOrg, requireOrg, type Principal, type ServiceContext, quoteValue } from "@hangar/shared";
import type { DataService } from "@hangar/shared/proto/data";
import { checkRelativePath } from "../domain/paths";
import type { AccessMode, ObjectStore } from "../object-store/object-store";
import { DatasetStore } from "../store/dataset-store";
import type { UploadTransactionRow } from "../store/file-entities";
import { FileStore } from "../store/file-store";
import { credentialsToProto } from "./file-mappers";
import { CREDENTIALS_TTL_SECONDS, checkUploaded, finishTransaction, loadTransaction, makeAvailable, openTransaction, uploadTarget } from "./uploads";

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
>;

/** The upload operations: transactions, credentials, progress, completion and abort. */
export function createUploadHandlers(context: ServiceContext, objects: ObjectStore): UploadHandlers {
  const fork = () => new FileStore(context.orm.em.fork());
  const beginSingle = async (caller: Principal, association: { associationId: string; associationType: string }, filePath: string, fileSize: bigint, origination: string) => {
    const store = fork();
    const target = await uploadTarget(store, caller, association, "association");
    const path = checkRelativePath(filePath, "file_path");
    const { transaction, items } = await openTransaction(store, objects, { caller, ...target, origination, deviceId: null, manifest: { [path]: fileSize }, field: "file_path" });
    await store.flush();
    const uploadUrl = await objects.presignPut(items[0]!.objectKey, { expiresInSeconds: CREDENTIALS_TTL_SECONDS });
    return { uploadId: transaction.transactionId, uploadUrl };
  };
  const complete = async (caller: Principal, transactionId: string, datasetId?: string) => {
    const orgId = requireOrg(caller);
    const completed = await fork().em.transactional(async (em) => {
      const store = new FileStore(em);
      const transaction = await loadTransaction(store, orgId, transactionId, true);
      if (datasetId !== undefined && transaction.associationId !== datasetId) throw notFound("upload", transactionId);
      if (transaction.status === "completed") return false;
      const pending = (await store.items(transactionId)).filter((item) => !item.uploaded);
      await checkUploaded(objects, pending, (item) => `upload '${item.relativePath}'`);
      await makeAvailable(store, transaction, pending, objects.location.bucket, caller.subject);
      await finishTransaction(store, transaction, caller.subject);
      return true;
    });
    if (completed) context.eventsWritten();
    return {};
  };

  return {
    async beginBatchUpload(req, ctx) {
      const caller = callerOf(ctx);
      const store = fork();
      const target = await uploadTarget(store, caller, req.association, "association");
      const { transaction, items } = await openTransaction(store, objects, {
        caller,
        ...target,
        origination: req.origination,
        deviceId: req.deviceId ?? null,
        manifest: req.resourceManifest,
        field: "resource_manifest",
      });
      await store.flush();
      const mappings = Object.fromEntries(
        Object.keys(req.resourceManifest).map((raw, i) => [raw, `s3://${objects.location.bucket}/${items[i]!.objectKey}`]),
      );
      return { transactionId: transaction.transactionId, uploadMappings: mappings };
    },

    async uploadCredentials(req, ctx) {
      const transaction = await openOf(fork(), callerOf(ctx), req.uploadId);
      const creds = await objects.issueCredentials({ prefix: transaction.prefix, mode: "ReadWrite", ttlSeconds: CREDENTIALS_TTL_SECONDS });
      return { credentials: [credentialsToProto(creds, objects.location)] };
    },

    async reportUploadProgress(req, ctx) {
      const caller = callerOf(ctx);
      const result = await fork().em.transactional(async (em) => {
        const store = new FileStore(em);
        const transaction = await openOf(store, caller, req.uploadId, true);
        const items = await store.items(transaction.transactionId);
        const byUri = new Map(items.map((item) => [`s3://${objects.location.bucket}/${item.objectKey}`, item]));
        const marked = req.manifestItems.map((uri, i) => {
          const item = byUri.get(uri);
          if (!item) throw invalidArgument(`manifest_items[${i}]`, `${quoteValue(uri)} is not in the transaction's manifest`);
          return item;
        });
        const fresh = marked.filter((item, i) => !item.uploaded && marked.indexOf(item) === i);
        await checkUploaded(objects, fresh, (item) => `manifest_items[${marked.indexOf(item)}]`);
        await makeAvailable(store, transaction, fresh, objects.location.bucket, caller.subject);
        const done = items.every((item) => item.uploaded);
        if (done) await finishTransaction(store, transaction, caller.subject);
        return { items: marked.map((item) => ({ uri: `s3://${objects.location.bucket}/${item.objectKey}`, fileId: item.fileId })), done };
      });
      if (result.done) context.eventsWritten();
      return { items: result.items };
    },

    async completeUpload(req, ctx) {
      return complete(callerOf(ctx), req.uploadId);
    },

    async completeDatasetUpload(req, ctx) {
      return complete(callerOf(ctx), req.uploadId, req.datasetId);
    },

    async abortTransactions(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = requireOrg(caller);
      const keys = await fork().em.transactional(async (em) => {
        const store = new FileStore(em);
        const transactions = await store.transactionsByIds(orgId, req.transactionIds);
        req.transactionIds.forEach((id, i) => {
          const transaction = transactions.get(id);
          if (!transaction) throw invalidArgument(`transaction_ids[${i}]`, `upload transaction ${quoteValue(id)} not found`);
          if (transaction.status === "completed") throw conflict(`upload transaction ${quoteValue(id)} is already completed`);
        });
        const open = [...transactions.values()].filter((transaction) => transaction.status === "open");
        for (const transaction of open) transaction.status = "aborted";
        const items = await store.itemsOfAll(open.map((transaction) => transaction.transactionId));
        const files = await store.nodesByIds(orgId, items.map((item) => item.fileId));
        for (const file of files.values()) if (file.status === "pending") store.remove(file);
        return items.map((item) => item.objectKey);
      });
      await objects.deleteObjects(keys);
      return {};
    },

    async beginFileUpload(req, ctx) {
      return beginSingle(callerOf(ctx), { associationId: req.association?.associationId ?? "", associationType: req.association?.associationType ?? "" }, req.filePath, req.fileSize, req.origination);
    },

    async beginDatasetUpload(req, ctx) {
      return beginSingle(callerOf(ctx), { associationId: req.datasetId, associationType: "dataset" }, req.filePath, req.fileSize, req.origination ?? "");
    },

    async datasetCredentials(req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      const dataset = orgId ? await new DatasetStore(context.orm.em.fork()).read(orgId, req.datasetId) : null;
      if (!dataset) throw notFound("dataset", req.datasetId);
      const mode = parseMode(req.mode);
      const creds = await objects.issueCredentials({ prefix: `${dataset.orgId}/${dataset.datasetId}/`, mode, ttlSeconds: CREDENTIALS_TTL_SECONDS });
      return { credentials: [credentialsToProto(creds, objects.location)] };
    },
  };
}

/** An open transaction of the caller's org (completed or aborted ones are a 409), locked with `lock`. */
async function openOf(store: FileStore, caller: Principal, transactionId: string, lock = false): Promise<UploadTransactionRow> {
  const transaction = await loadTransaction(store, requireOrg(caller), transactionId, lock);
  if (transaction.status !== "open") throw conflict(`upload transaction ${quoteValue(transactionId)} is already completed`);
  return transaction;
}

function parseMode(mode: string | undefined): AccessMode {
  if (mode === undefined || mode === "" || mode === "ReadOnly") return "ReadOnly";
  if (mode === "ReadWrite") return "ReadWrite";
  throw invalidArgument("mode", `must be ReadOnly or ReadWrite, got ${quoteValue(mode)}`);
}
