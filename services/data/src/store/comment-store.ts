import { EntitySchema, LockMode } from "@mikro-orm/core";
import { listedPage, rawSql, sql, timestampFromRow, type EntityManager, type SqlFragment } from "@hangar/shared";
import type { CommentEntityType, CommentPage, CommentRange, CommentRecord, CommentRepository, CommentScope } from "../domain/comments";

// The table also has a `seq` identity column that orders listings; only the listings' SQL reads it.
export const Comment = new EntitySchema<CommentRecord>({
  name: "Comment",
  tableName: "comments",
  properties: {
    commentId: { type: "string", primary: true },
    orgId: { type: "string" },
    entityType: { type: "string" },
    entityId: { type: "string" },
    commentText: { type: "text" },
    mentions: { type: "string[]" },
    created: { type: "Date" },
    createdBy: { type: "string" },
    modified: { type: "Date" },
    modifiedBy: { type: "string" },
  },
});

/** The comment entities of the data service. */
export const commentEntities = [Comment];

/** The comments repository over MikroORM; listings are keyset pages in SQL. */
export class CommentStore implements CommentRepository {
  constructor(readonly em: EntityManager) {}

  find(orgId: string, commentId: string, lock = false): Promise<CommentRecord | null> {
    return this.em.findOne(Comment, { orgId, commentId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  add(record: CommentRecord): void {
    this.em.create(Comment, record);
  }

  remove(record: CommentRecord): void {
    this.em.remove(record);
  }

  list(orgId: string, scope: CommentScope, range: CommentRange): Promise<CommentPage> {
    const query = { select: rawSql("*"), from: rawSql("comments"), where: sql`org_id = ${orgId} and ${scopeCondition(scope)}`, seq: "seq" };
    const keyed = range.newestFirst ? { limit: range.limit, before: range.cursor } : { limit: range.limit, after: range.cursor };
    return listedPage(this.em, query, keyed, commentFromRow);
  }

}

function scopeCondition(scope: CommentScope): SqlFragment {
  switch (scope.kind) {
    case "entity":
      return sql`entity_type = ${scope.entityType} and entity_id = ${scope.entityId}`;
    case "type":
      return sql`entity_type = ${scope.entityType}`;
    case "user":
      return sql`created_by = ${scope.userId}`;
    case "org":
      return rawSql("true");
  }
}

function commentFromRow(row: Record<string, unknown>): CommentRecord {
  return {
    commentId: row.comment_id as string,
    orgId: row.org_id as string,
    entityType: row.entity_type as CommentEntityType,
    entityId: row.entity_id as string,
    commentText: row.comment_text as string,
    mentions: row.mentions as string[],
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
  };
}
