import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, planKeysetPage, type KeysetPage } from "@hangar/shared";
import { CommentSchema, type DataService } from "@hangar/shared/proto/data";
import { createComment, deleteComment, getComment, listComments, updateComment, type CommentDeps } from "../domain/comment-use-cases";
import { checkEntityType, type CommentPage, type CommentRecord, type CommentScope } from "../domain/comments";
import type { Actor } from "../domain/actor";
import { readerOf, writerOf } from "./actors";
import { pageToProto } from "./device-mappers";

type CommentHandlers = Pick<
  ServiceImpl<typeof DataService>,
  "createComment" | "getComment" | "updateComment" | "deleteComment" | "listCommentsForEntity" | "listCommentsByType" | "listCommentsByUser" | "listComments"
>;

/** What the comment operations need: the unit of work, the compute service's entities, and the outbox relay's wake-up. */
export interface CommentHandlerDeps extends CommentDeps {
  /** Wakes the outbox relay after a commit that may have recorded a comment-mention event. */
  eventsWritten(): void;
}

/**
 * The comment operations (rules in domain/comment-use-cases): create on an entity of the caller's
 * org, read, edit and delete (the author only), and the listings by entity, entity type, author and
 * the org's recent ones. Another org's comments are 404s and empty pages.
 */
export function createCommentHandlers(deps: CommentHandlerDeps): CommentHandlers {
  const { uow, eventsWritten } = deps;
  const page = (actor: Actor, scope: CommentScope, req: { pageSize?: bigint; pageToken?: string }, newestFirst = false) =>
    listPage(deps, actor, scope, planKeysetPage(req.pageSize, req.pageToken, `comments:${actor.orgId}:${JSON.stringify(scope)}`), newestFirst);
  return {
    async createComment(req, ctx) {
      const record = await createComment(deps, writerOf(callerOf(ctx)), req);
      eventsWritten();
      return { comment: commentToProto(record) };
    },

    async getComment(req, ctx) {
      return { comment: commentToProto(await getComment(deps, readerOf(callerOf(ctx)), req.commentId)) };
    },

    async updateComment(req, ctx) {
      const record = await updateComment(uow, readerOf(callerOf(ctx)), req.commentId, req.commentText);
      eventsWritten();
      return { comment: commentToProto(record) };
    },

    async deleteComment(req, ctx) {
      await deleteComment(uow, readerOf(callerOf(ctx)), req.commentId);
      return {};
    },

    async listCommentsForEntity(req, ctx) {
      return page(readerOf(callerOf(ctx)), { kind: "entity", entityType: checkEntityType(req.entityType), entityId: req.entityId }, req);
    },

    async listCommentsByType(req, ctx) {
      return page(readerOf(callerOf(ctx)), { kind: "type", entityType: checkEntityType(req.entityType) }, req);
    },

    async listCommentsByUser(req, ctx) {
      return page(readerOf(callerOf(ctx)), { kind: "user", userId: req.userId }, req);
    },

    async listComments(req, ctx) {
      return page(readerOf(callerOf(ctx)), { kind: "org" }, req, true);
    },
  };
}

async function listPage(deps: CommentDeps, actor: Actor, scope: CommentScope, keyset: KeysetPage, newestFirst: boolean) {
  const listed: CommentPage = await listComments(deps, actor, scope, { limit: keyset.limit, cursor: keyset.before, newestFirst });
  return pageToProto(listed, keyset, CommentSchema, commentToProto);
}

/** A comment to its wire record. */
export function commentToProto(record: CommentRecord): MessageInitShape<typeof CommentSchema> {
  return {
    commentId: record.commentId,
    orgId: record.orgId,
    entityType: record.entityType,
    entityId: record.entityId,
    commentText: record.commentText,
    mentions: record.mentions,
    created: timestampFromDate(record.created),
    createdBy: record.createdBy,
    modified: timestampFromDate(record.modified),
    modifiedBy: record.modifiedBy,
  };
}
