import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { callerOf, planKeysetPage, type UnitOfWork } from "@hangar/shared";
import type { DataService } from "@hangar/shared/proto/data";
import { listTags, type TaggedKind, type TagRepositories } from "../domain/tags";
import { readerOf } from "./actors";

type TagHandlers = Pick<ServiceImpl<typeof DataService>, "listDatasetTags" | "listRobotEventTags" | "listFileTags">;

/** The page size of a tag listing whose caller names no `limit` (the platform's usual default). */
const TAG_PAGE_SIZE = 1000;

interface TagsRequest {
  search?: string | undefined;
  limit?: bigint | undefined;
  pageToken?: string | undefined;
}

/**
 * The tag listings of SDK 0.62 (row 44: datasets, events, files): `{items, next_token}`; callers of
 * API versions before 2026-08-10 get `items` alone (the gateway's version table).
 */
export function createTagHandlers(uow: UnitOfWork<TagRepositories>): TagHandlers {
  const page = async (kind: TaggedKind, req: TagsRequest, ctx: HandlerContext) => {
    const actor = readerOf(callerOf(ctx));
    const range = planKeysetPage(req.limit, req.pageToken, `tags:${kind}:${actor.orgId ?? ""}:${req.search ?? ""}`, { sizeField: "limit", defaultSize: TAG_PAGE_SIZE });
    const { tags, hasMore } = await listTags(uow, actor, kind, req.search, range);
    const nextToken = range.nextToken((range.before ?? 0) + tags.length, hasMore);
    return { items: tags, ...(nextToken ? { nextToken } : {}) };
  };
  return {
    listDatasetTags: (req, ctx) => page("dataset", req, ctx),
    listRobotEventTags: (req, ctx) => page("event", req, ctx),
    listFileTags: (req, ctx) => page("file", req, ctx),
  };
}
