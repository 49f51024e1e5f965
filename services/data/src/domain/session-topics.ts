import { notFound, type UnitOfWork } from "@hangar/shared";
import type { Actor } from "./actor";
import type { ListedPage, ListedRange } from "./devices";
import { findSession, type SessionRepositories } from "./session-use-cases";

/** A topic a session holds data of, as the session topic routes show it (the SDK's TopicIdentityRecord). */
export interface SessionTopicRow {
  topicId: string;
  name: string;
  orgId: string;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/**
 * One page of the topics a session holds data of (list_session_topics), by name then topic id:
 * a topic with a timeline extent on one of the session's files, inside the slice of the file the
 * session holds and overlapping its window there. Each topic once, however many parts carry it.
 * `range.before` counts the topics earlier pages served (the order is by name, not by a sequence).
 */
export async function listSessionTopics(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionId: string, range: ListedRange): Promise<ListedPage<SessionTopicRow>> {
  const r = uow.repositories();
  const session = await findSession(r, actor, sessionId);
  return r.sessions.topics(session.sessionId, range);
}

/**
 * The session's topic named `name` (get_session_topic): a 404 when the session holds no data of
 * a topic so named. Topics belong to files, so two files of a session may each carry one of the
 * name: the first by topic id answers, as the listing orders them.
 */
export async function getSessionTopic(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionId: string, name: string): Promise<SessionTopicRow> {
  const r = uow.repositories();
  const session = await findSession(r, actor, sessionId);
  const [topic] = (await r.sessions.topics(session.sessionId, { limit: 1, before: undefined }, name)).rows;
  if (!topic) throw notFound("topic of the session", name);
  return topic;
}
