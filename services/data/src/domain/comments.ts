import { invalidArgument, quoteValue, type ListedPage } from "@hangar/shared";

/** The kinds of entity a comment may be on, as the client SDK's `CommentEntityType` names them. */
export const COMMENT_ENTITY_TYPES = ["action", "collection", "dataset", "file", "invocation", "trigger"] as const;
/** One of COMMENT_ENTITY_TYPES. */
export type CommentEntityType = (typeof COMMENT_ENTITY_TYPES)[number];

/** How many distinct users one comment may mention: each mention may become a notification. */
export const MAX_MENTIONS = 100;

/** A comment on an entity of an org; `mentions` are the user ids its text mentions, in order of first mention. */
export interface CommentRecord {
  commentId: string;
  orgId: string;
  entityType: CommentEntityType;
  entityId: string;
  commentText: string;
  mentions: string[];
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** Which comments of an org a listing shows. */
export type CommentScope =
  | { kind: "entity"; entityType: CommentEntityType; entityId: string }
  | { kind: "type"; entityType: CommentEntityType }
  | { kind: "user"; userId: string }
  | { kind: "org" };

/**
 * One page of a listing: at most `limit` comments after the key `cursor` (none: from the start),
 * oldest first, or newest first with `newestFirst`.
 */
export interface CommentRange {
  limit: number;
  cursor: number | undefined;
  newestFirst: boolean;
}

/** A page of comments with each row's key (so a page cut short can continue after any row). */
export type CommentPage = ListedPage<CommentRecord>;

/** The comments of the data service's database. Found records are tracked: changes are written on commit. */
export interface CommentRepository {
  /** A comment of the org, locked for update when asked (in a transaction). */
  find(orgId: string, commentId: string, lock?: boolean): Promise<CommentRecord | null>;
  add(record: CommentRecord): void;
  remove(record: CommentRecord): void;
  /** One page of the org's comments in a scope. */
  list(orgId: string, scope: CommentScope, range: CommentRange): Promise<CommentPage>;
  /** Removes the comments on an entity created at or before `before`; how many it removed. */
  removeOfEntity(orgId: string, entityType: CommentEntityType, entityId: string, before: Date): Promise<number>;
}

/** Validates an entity type against the SDK's names; a 400 naming `field` lists them. */
export function checkEntityType(entityType: string, field = "entity_type"): CommentEntityType {
  if ((COMMENT_ENTITY_TYPES as readonly string[]).includes(entityType)) return entityType as CommentEntityType;
  throw invalidArgument(field, `must be one of ${COMMENT_ENTITY_TYPES.join(", ")}, got ${quoteValue(entityType)}`);
}

/** Validates a comment's text: not blank. Its length limit is the request's (proto `max_len`). */
export function checkCommentText(text: string, field = "comment_text"): string {
  if (text.trim().length === 0) throw invalidArgument(field, "must not be empty");
  return text;
}

// `@[Display Name](user_id)`: the name may hold anything but `]`, the id anything but `)` and
// whitespace (user ids are often e-mail addresses). An empty name or id is no mention.
const MENTION = /@\[([^\]\n]+)\]\(([^)\s]+)\)/g;

/**
 * The user ids a comment's text mentions, as the client SDK writes mentions
 * (`@[Display Name](user_id)`): distinct, in order of first mention. More than MAX_MENTIONS
 * distinct users is a 400 naming `field`.
 */
export function parseMentions(text: string, field = "comment_text"): string[] {
  const ids = new Set<string>();
  for (const match of text.matchAll(MENTION)) ids.add(match[2]!);
  if (ids.size > MAX_MENTIONS) throw invalidArgument(field, `mentions at most ${MAX_MENTIONS} users, got ${ids.size}`);
  return [...ids];
}

/**
 * Whom a create or an update newly mentions, and so notifies: the mentions that `before` (the
 * comment's earlier mentions; none for a new comment) lacked, without the author.
 */
export function newlyMentioned(mentions: readonly string[], before: readonly string[], author: string): string[] {
  const known = new Set(before);
  return mentions.filter((id) => !known.has(id) && id !== author);
}
