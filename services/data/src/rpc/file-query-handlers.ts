import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, fitPage, readableOrg, type UnitOfWork } from "@hangar/shared";
import type { DataService } from "@hangar/shared/proto/data";
import { FileSchema } from "@hangar/shared/proto/data";
import { countFiles, searchFiles, type FileSearchRepositories } from "../domain/file-search";
import { fileToProto } from "./file-mappers";

type FileQueryHandlers = Pick<ServiceImpl<typeof DataService>, "queryFiles" | "countFiles">;

/**
 * The org-wide file search: query_files (a page of File) and count_files (the number of matches),
 * both over the caller's org's available files, with a QuerySpecification body.
 */
export function createFileQueryHandlers(uow: UnitOfWork<FileSearchRepositories>): FileQueryHandlers {
  return {
    async queryFiles(req, ctx) {
      const result = await searchFiles(uow, readableOrg(callerOf(ctx)), req.query ?? {});
      // The next page starts after the last file kept: fitPage may keep fewer than were read.
      const items = fitPage(FileSchema, result.rows.map(fileToProto));
      const nextToken = result.nextToken(items.length);
      return {
        items,
        ...(result.total !== undefined ? { totalCount: BigInt(result.total) } : {}),
        ...(nextToken ? { nextToken } : {}),
      };
    },

    async countFiles(req, ctx) {
      return { count: BigInt(await countFiles(uow, readableOrg(callerOf(ctx)), req.query ?? {})) };
    },
  };
}
