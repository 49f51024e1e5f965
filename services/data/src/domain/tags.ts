import { invalidArgument, type UnitOfWork } from "@hangar/shared";
import type { Actor } from "./actor";
import type { ListedRange } from "./devices";
import type { DataRepositories } from "./repositories";

/** Whose tags a tag listing reads: the org's datasets, events or available files. */
export type TaggedKind = "dataset" | "event" | "file";

/** One page of tags, by tag; `hasMore` when a later page holds more. */
export interface TagPage {
  tags: string[];
  hasMore: boolean;
}

/** The distinct tags of a kind of record in an org. */
export interface TagRepository {
  /** A page of the distinct tags of the org's records of `kind` containing `search` (case-insensitive) when given; `range.before` counts the tags earlier pages served. */
  list(orgId: string, kind: TaggedKind, search: string | undefined, range: ListedRange): Promise<TagPage>;
}

/** What the tag listings reach. */
export type TagRepositories = Pick<DataRepositories, "tags">;

/**
 * A page of the distinct tags of the caller's org's datasets, events or files (the tag routes of
 * SDK 0.62, row 44: autocomplete), by tag. An empty `search` is refused: it would match every tag
 * as omitting it does, and the caller likely meant to send something. Another org's tags never show;
 * a caller acting in no org gets an empty page.
 */
export async function listTags(uow: UnitOfWork<TagRepositories>, actor: Actor, kind: TaggedKind, search: string | undefined, range: ListedRange): Promise<TagPage> {
  if (search !== undefined && search.trim() === "") throw invalidArgument("search", "must not be empty (omit it to list every tag)");
  if (!actor.orgId) return { tags: [], hasMore: false };
  return uow.repositories().tags.list(actor.orgId, kind, search, range);
}
