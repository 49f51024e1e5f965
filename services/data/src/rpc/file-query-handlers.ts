import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, readableOrg, type ServiceContext, fitPage } from "@hangar/shared";
import type { DataService } from "@hangar/shared/proto/data";
import { FileSchema } from "@hangar/shared/proto/data";
import { TOTAL_COUNT_CAP, planFileCount, planFileSearch } from "../domain/file-search";
import { FileSearchStore } from "../store/file-search-store";
import { fileToProto } from "./file-mappers";

type FileQueryHandlers = Pick<ServiceImpl<typeof DataService>, "queryFiles" | "countFiles">;

/**
 * The org-wide file search: query_files (a page of File) and count_files (the number of matches),
 * both over the caller's org's available files, with a QuerySpecification body.
 */
export function createFileQueryHandlers(context: ServiceContext): FileQueryHandlers {
  const store = () => new FileSearchStore(context.orm.em.fork());

  return {
    async queryFiles(req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      // Planned before the org check, so bad input is a 400 for every caller.
      const plan = planFileSearch(req.query ?? {});
      if (!orgId) return { items: [], totalCount: 0n };
      const { rows, hasMore, cursors, total } = await store().search(orgId, plan, TOTAL_COUNT_CAP);
      // The next page starts after the last file kept: fitPage may keep fewer than were read.
      const items = fitPage(FileSchema, rows.map(fileToProto));
      const nextToken = plan.nextToken(cursors[items.length - 1], hasMore || items.length < rows.length);
      return {
        items,
        ...(total !== undefined ? { totalCount: BigInt(total) } : {}),
        ...(nextToken ? { nextToken } : {}),
      };
    },

    async countFiles(req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      const where = planFileCount(req.query ?? {});
      return { count: orgId ? BigInt(await store().count(orgId, where)) : 0n };
    },
  };
}
