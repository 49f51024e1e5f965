import { EntitySchema, LockMode } from "@mikro-orm/core";
import { listedPage, rawSql, sql, timestampFromRow, type EntityManager, type SqlFragment } from "@hangar/shared";
import type { CommentEntityType, CommentPage, CommentRange, CommentRecord, CommentRepository, CommentScope } from "../domain/comments";
import { liveAssociation } from "./deleted-associations";

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
    const where = sql`c.org_id = ${orgId} and ${scopeCondition(scope)} and ${LIVE_ENTITY}`;
    const query = { select: rawSql("c.*"), from: rawSql("comments c"), where, seq: "c.seq" };
    const keyed = range.newestFirst ? { limit: range.limit, before: range.cursor } : { limit: range.limit, after: range.cursor };
    return listedPage(this.em, query, keyed, commentFromRow);
  }

  removeOfEntity(orgId: string, entityType: CommentEntityType, entityId: string, before: Date): Promise<number> {
    return this.em.nativeDelete(Comment, { orgId, entityType, entityId, created: { $lte: before } });
  }
}

/**
 * True for a comment whose entity still exists, for the entities this service holds: a deleted
 * dataset's or file's comments leave every listing in the deleting transaction, as reading one by
 * id already answers 404 then. A deleted action's, invocation's or trigger's comments are removed
 * when the compute service's deletion event arrives (removeCommentsOfDeleted); until then a read by
 * id asks the compute service and answers 404.
 */
const LIVE_ENTITY = rawSql(
  `(c.entity_type not in ('dataset', 'file')` +
    ` or (c.entity_type = 'dataset' and exists (select 1 from datasets d where d.dataset_id = c.entity_id and d.org_id = c.org_id))` +
    ` or (c.entity_type = 'file' and exists (select 1 from fs_nodes n where n.node_id = c.entity_id and n.org_id = c.org_id and n.fs_type = 'file' and ${liveAssociation("n").sql})))`,
);

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
