import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, type Logger, type UnitOfWork } from "@hangar/shared";
import type { DataService } from "@hangar/shared/proto/data";
import type { ExportRepositories } from "../domain/export-jobs";
import { exportFiles, exportStatus } from "../domain/export-use-cases";
import type { ObjectStore } from "../object-store/object-store";
import { readerOf } from "./actors";
import { CREDENTIALS_TTL_SECONDS } from "./uploads";

type ExportHandlers = Pick<ServiceImpl<typeof DataService>, "exportFiles" | "getExportStatus">;

/** What the export operations need. */
export interface ExportHandlerDeps {
  uow: UnitOfWork<ExportRepositories>;
  /** Where the archives go, and where they are downloaded from. */
  objects: ObjectStore;
  /** Where a background build logs what it cannot record on its job. */
  logger: Logger;
}

/**
 * Exports: export_files answers a job id at once and builds a ZIP of the files in the background
 * (domain/export-use-cases.ts); get_export_status reports the job and, once completed, a download
 * URL presigned at each call (valid one hour), so a URL never expires while it sits in the database.
 */
export function createExportHandlers(deps: ExportHandlerDeps): ExportHandlers {
  return {
    async exportFiles(req, ctx) {
      const job = await exportFiles(deps, readerOf(callerOf(ctx)), req.nodeIds);
      return { exportJobId: job.exportJobId };
    },

    async getExportStatus(req, ctx) {
      const job = await exportStatus(deps.uow, readerOf(callerOf(ctx)), req.exportJobId);
      const downloadUrl =
        job.status === "completed"
          ? await deps.objects.presignGet(job.objectKey, { expiresInSeconds: CREDENTIALS_TTL_SECONDS, contentDisposition: `attachment; filename="${job.exportJobId}.zip"` })
          : undefined;
      return {
        status: job.status,
        ...(downloadUrl ? { downloadUrl } : {}),
        ...(job.error !== null ? { error: job.error } : {}),
        bytesUploaded: BigInt(job.bytesUploaded),
        totalBytes: BigInt(job.totalBytes),
      };
    },
  };
}
