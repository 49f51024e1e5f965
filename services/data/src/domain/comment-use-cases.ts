import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { invalidArgument, newId, notFound, TOPICS, unauthenticated, type UnitOfWork } from "@hangar/shared";
import { CommentMentionSchema } from "@hangar/shared/proto/events";
import type { Actor, OrgActor } from "./actor";
import { checkCommentText, checkEntityType, newlyMentioned, parseMentions, type CommentEntityType, type CommentPage, type CommentRange, type CommentRecord, type CommentScope } from "./comments";
import type { DataRepositories } from "./repositories";

/** What the comment use cases reach: comments, the entities they are on, and the outbox. */
export type CommentRepositories = Pick<DataRepositories, "comments" | "datasets" | "files" | "events" | "collections">;

/** The entity types another service owns: the compute service's actions, invocations and triggers. */
export type ComputeEntityType = Extract<CommentEntityType, "action" | "invocation" | "trigger">;

/**
 * The compute service's entities as comments need them (rpc/ asks it over gRPC). Actions and
 * triggers are addressed by name, as their routes address them; invocations by id.
 */
export interface ComputeEntities {
  /** Whether the org can see the entity; false when it does not exist there. */
  exists(orgId: string, entityType: ComputeEntityType, entityId: string): Promise<boolean>;
}

/** What a comment use case needs besides its unit of work. */
export interface CommentDeps {
  uow: UnitOfWork<CommentRepositories>;
  compute: ComputeEntities;
}

/** A new comment as a request gives it. */
export interface NewComment {
  entityType: string;
  entityId: string;
  commentText: string;
}

/**
 * Comments on an entity of the actor's org, which must exist there (a 404 otherwise). Mentions are
 * parsed from the text; the users it mentions (but its author) are announced in a comment-mention
 * event written in the comment's transaction.
 */
export async function createComment(deps: CommentDeps, actor: OrgActor, input: NewComment): Promise<CommentRecord> {
  const entityType = checkEntityType(input.entityType);
  const commentText = checkCommentText(input.commentText);
  const mentions = parseMentions(commentText);
  await requireEntity(deps, actor.orgId, entityType, input.entityId);
  const now = new Date();
  const record: CommentRecord = {
    commentId: newId("cm"),
    orgId: actor.orgId,
    entityType,
    entityId: input.entityId,
    commentText,
    mentions,
    created: now,
    createdBy: actor.subject,
    modified: now,
    modifiedBy: actor.subject,
  };
  await deps.uow.transaction(async (r) => {
    r.comments.add(record);
    recordMentions(r, record, newlyMentioned(mentions, [], actor.subject));
  });
  return record;
}

/** A comment the actor can read: of its org, on an entity that is still there (a 404 otherwise). */
export async function getComment(deps: CommentDeps, actor: Actor, commentId: string): Promise<CommentRecord> {
  const record = actor.orgId ? await deps.uow.repositories().comments.find(actor.orgId, commentId) : null;
  if (!record) throw notFound("comment", commentId);
  await requireEntity(deps, record.orgId, record.entityType, record.entityId, () => notFound("comment", commentId));
  return record;
}

/**
 * Replaces a comment's text (its author only: anyone else gets 401) and its mentions; only users
 * it did not mention before are announced, so an edit notifies nobody twice.
 */
export function updateComment(uow: UnitOfWork<CommentRepositories>, actor: Actor, commentId: string, text: string): Promise<CommentRecord> {
  const commentText = checkCommentText(text);
  const mentions = parseMentions(commentText);
  return uow.transaction(async (r) => {
    const record = await authored(r, actor, commentId, "edit");
    const before = record.mentions;
    record.commentText = commentText;
    record.mentions = mentions;
    record.modified = new Date();
    record.modifiedBy = actor.subject;
    recordMentions(r, record, newlyMentioned(mentions, before, record.createdBy));
    return record;
  });
}

/** Deletes a comment; its author only (anyone else gets 401). */
export async function deleteComment(uow: UnitOfWork<CommentRepositories>, actor: Actor, commentId: string): Promise<void> {
  await uow.transaction(async (r) => r.comments.remove(await authored(r, actor, commentId, "delete")));
}

/**
 * One page of the actor's org's comments in a scope. Listing an entity's comments needs the entity
 * (a 404 otherwise); another org's caller finds nothing.
 */
export async function listComments(deps: CommentDeps, actor: Actor, scope: CommentScope, range: CommentRange): Promise<CommentPage> {
  if (scope.kind === "entity") {
    if (!actor.orgId) throw notFound(scope.entityType, scope.entityId);
    await requireEntity(deps, actor.orgId, scope.entityType, scope.entityId);
  }
  if (!actor.orgId) return { rows: [], keys: [], hasMore: false, total: 0 };
  return deps.uow.repositories().comments.list(actor.orgId, scope, range);
}

/** A compute entity's deletion as the compute service announces it. */
export interface DeletedComputeEntity {
  orgId: string;
  entityType: string;
  entityId: string;
  deleted: Date;
}

/**
 * Removes the comments of a deleted action, invocation or trigger, in the caller's transaction (the
 * consumer's, which records the event as handled, so a redelivery removes nothing). Only comments
 * written up to the deletion go: a later entity of the same name keeps its own.
 */
export async function removeCommentsOfDeleted(r: Pick<CommentRepositories, "comments">, deleted: DeletedComputeEntity): Promise<number> {
  const entityType = checkEntityType(deleted.entityType);
  if (!COMPUTE_ENTITY_TYPES.has(entityType)) throw invalidArgument("entity_type", `${entityType} is not a compute service entity`);
  return r.comments.removeOfEntity(deleted.orgId, entityType, deleted.entityId, deleted.deleted);
}

const COMPUTE_ENTITY_TYPES: ReadonlySet<CommentEntityType> = new Set<ComputeEntityType>(["action", "invocation", "trigger"]);

async function authored(r: CommentRepositories, actor: Actor, commentId: string, verb: "edit" | "delete"): Promise<CommentRecord> {
  const record = actor.orgId ? await r.comments.find(actor.orgId, commentId, true) : null;
  if (!record) throw notFound("comment", commentId);
  if (record.createdBy !== actor.subject) throw unauthenticated(`only the author of a comment may ${verb} it`);
  return record;
}

/**
 * Checks that the org has the entity: datasets, files and collections here, actions, invocations
 * and triggers in the compute service.
 */
async function requireEntity(deps: CommentDeps, orgId: string, entityType: CommentEntityType, entityId: string, missing = () => notFound(entityType, entityId)): Promise<void> {
  switch (entityType) {
    case "dataset":
      if (!(await deps.uow.repositories().datasets.read(orgId, entityId))) throw missing();
      return;
    case "file":
      if ((await deps.uow.repositories().files.findNode(orgId, entityId))?.fsType !== "file") throw missing();
      return;
    case "collection":
      if (!(await deps.uow.repositories().collections.find(orgId, entityId))) throw missing();
      return;
    case "action":
    case "invocation":
    case "trigger":
      if (entityId === "") throw invalidArgument("entity_id", "is required");
      if (!(await deps.compute.exists(orgId, entityType, entityId))) throw missing();
      return;
  }
}

function recordMentions(r: CommentRepositories, record: CommentRecord, mentioned: string[]): void {
  if (mentioned.length === 0) return;
  const event = create(CommentMentionSchema, {
    orgId: record.orgId,
    commentId: record.commentId,
    entityType: record.entityType,
    entityId: record.entityId,
    author: record.createdBy,
    mentionedUserIds: mentioned,
    commentText: record.commentText,
    mentioned: timestampFromDate(record.modified),
  });
  r.events.record({ topic: TOPICS.commentMention, key: record.commentId, payload: toBinary(CommentMentionSchema, event) });
}
