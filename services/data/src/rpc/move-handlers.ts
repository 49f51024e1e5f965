import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, readableOrg } from "@hangar/shared";
import type { DataService } from "@hangar/shared/proto/data";
import { deleteDatasetFiles, moveFile, moveNodes } from "../domain/moves";
import type { FileHandlerDeps } from "./file-deps";
import { fileToProto } from "./file-mappers";

type MoveHandlers = Pick<ServiceImpl<typeof DataService>, "moveNodes" | "moveFile" | "deleteDatasetFiles">;

/** Moves and bulk deletes within a dataset. */
export function createMoveHandlers({ uow, objects }: FileHandlerDeps): MoveHandlers {
  return {
    async moveNodes(req, ctx) {
      const caller = callerOf(ctx);
      const files = await moveNodes(uow, readableOrg(caller), req.datasetId, req.operations, caller.subject);
      return { files: files.map(fileToProto) };
    },

    async moveFile(req, ctx) {
      const caller = callerOf(ctx);
      return { file: fileToProto(await moveFile(uow, readableOrg(caller), req, caller.subject)) };
    },

    async deleteDatasetFiles(req, ctx) {
      const { deleted, hasMore, keys } = await deleteDatasetFiles(uow, readableOrg(callerOf(ctx)), req.datasetId, req);
      await objects.deleteObjects(keys);
      return { successCount: BigInt(deleted), failureCount: 0n, hasMore };
    },
  };
}
