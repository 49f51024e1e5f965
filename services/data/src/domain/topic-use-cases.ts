import type { JsonObject } from "@bufbuild/protobuf";
import { applyFieldChanges, conflict, invalidArgument, newId, notFound, quoteValue, type MetadataChanges, type UnitOfWork } from "@hangar/shared";
import type { Actor } from "./actor";
import type { ListedPage, ListedRange } from "./devices";
import type { DataRepositories } from "./repositories";
import {
  CANONICAL_DATA_TYPES,
  checkNonEmpty,
  checkOneOf,
  STORAGE_FORMATS,
  type MessagePathRow,
  type RepresentationRow,
  type TimeBounds,
  type TopicAssociationRef,
  type TopicRepository,
  type TopicRow,
  type TopicView,
} from "./topics";

/** What the topic use cases reach: topics, and the datasets and files topics belong to. */
export type TopicRepositories = Pick<DataRepositories, "topics" | "datasets" | "files">;

/** A topic as a request addresses it: by id, or by association and name. */
export type TopicAddress = { topicId: string } | { association: TopicAssociationRef; topicName: string };

/** A message path as a request declares it; `field` names it in errors. */
export interface NewMessagePath {
  messagePath: string;
  dataType: string;
  canonicalDataType: string;
  metadata?: JsonObject | undefined;
  pathInSchema: readonly string[];
  field: string;
}

/** The fields of a new topic. */
export interface NewTopic {
  association: TopicAssociationRef;
  topicName: string;
  startTime?: bigint | undefined;
  endTime?: bigint | undefined;
  messageCount?: bigint | undefined;
  metadata?: JsonObject | undefined;
  schemaChecksum?: string | undefined;
  schemaName?: string | undefined;
  messagePaths: readonly NewMessagePath[];
}

/** An edit of a message path; absent fields stay. */
export interface MessagePathEdit {
  messagePath: string;
  metadataChangeset?: MetadataChanges | undefined;
  dataType?: string | undefined;
  canonicalDataType?: string | undefined;
  pathInSchema: readonly string[];
  field: string;
}

/** An edit of a topic; absent fields stay, null clears. */
export interface TopicEdit {
  startTime?: bigint | null | undefined;
  endTime?: bigint | null | undefined;
  messageCount?: bigint | undefined;
  schemaChecksum?: string | null | undefined;
  schemaName?: string | null | undefined;
  metadataChangeset?: MetadataChanges | undefined;
  messagePaths?: { add: readonly NewMessagePath[]; remove: readonly string[]; update: readonly MessagePathEdit[]; replaceAll: boolean } | undefined;
}

/** A representation as a request states it. */
export interface NewRepresentation {
  association: TopicAssociationRef;
  storageFormat: string;
  version: bigint;
  format?: string | undefined;
  transformations: readonly string[];
}

type AssociationRepositories = Pick<DataRepositories, "datasets" | "files">;

/**
 * The org of an association the actor may use: a dataset or a file of the actor's readable org.
 * Anything else is a 404, so another org's resources do not leak.
 */
export function associationOrg(r: AssociationRepositories, actor: Actor, association: TopicAssociationRef): Promise<string> {
  return orgOfAssociation(r, actor, association, (orgId, id) => r.datasets.find(orgId, id));
}

/**
 * associationOrg for a read outside a transaction: a dataset is read untracked (a prepared
 * statement, not the ORM's query building and hydration, about a third of the CPU).
 */
function readableAssociationOrg(r: AssociationRepositories, actor: Actor, association: TopicAssociationRef): Promise<string> {
  return orgOfAssociation(r, actor, association, (orgId, id) => r.datasets.read(orgId, id));
}

async function orgOfAssociation(
  r: AssociationRepositories,
  actor: Actor,
  association: TopicAssociationRef,
  datasetOf: (orgId: string, datasetId: string) => Promise<{ orgId: string } | null>,
): Promise<string> {
  const orgId = actor.orgId;
  const id = association.associationId;
  if (association.associationType === "dataset") {
    const dataset = orgId ? await datasetOf(orgId, id) : null;
    if (!dataset) throw notFound("dataset", id);
    return dataset.orgId;
  }
  const file = orgId ? await r.files.findNode(orgId, id) : null;
  if (!file || file.fsType !== "file") throw notFound("file", id);
  return file.orgId;
}

/** Creates a topic with its message paths on an association the actor can read; a clash of names is a 409. */
export async function createTopic(uow: UnitOfWork<TopicRepositories>, actor: Actor, input: NewTopic): Promise<TopicView> {
  checkNonEmpty(input.topicName, "topic_name");
  return uow.transaction(async (r) => {
    const orgId = await associationOrg(r, actor, input.association);
    const now = new Date();
    const row: TopicRow = {
      ...input.association,
      topicId: newId("tp"),
      orgId,
      topicName: input.topicName,
      schemaName: input.schemaName ?? null,
      schemaChecksum: input.schemaChecksum ?? null,
      schemaId: null,
      startTime: input.startTime ?? null,
      endTime: input.endTime ?? null,
      messageCount: input.messageCount ?? null,
      metadata: input.metadata ?? {},
      defaultRepresentationId: null,
      created: now,
      createdBy: actor.subject,
      modified: now,
      modifiedBy: actor.subject,
    };
    if (!(await r.topics.insert(row))) throw conflict(`topic ${quoteValue(input.topicName)} already exists on ${input.association.associationId}`);
    const paths = newMessagePaths(row, input.messagePaths, actor.subject, now);
    await insertPaths(r.topics, paths);
    return { topic: row, messagePaths: paths, representations: [] };
  });
}

/** A topic the actor can read, with its message paths and representations. */
export async function getTopic(uow: UnitOfWork<TopicRepositories>, actor: Actor, address: TopicAddress): Promise<TopicView> {
  return findView(uow.repositories(), actor, address);
}

/** One page of an association's topics, newest first (the association must be readable). */
export async function listAssociationTopics(uow: UnitOfWork<TopicRepositories>, actor: Actor, association: TopicAssociationRef, range: ListedRange): Promise<ListedPage<TopicView>> {
  const r = uow.repositories();
  const orgId = await readableAssociationOrg(r, actor, association);
  return r.topics.list(orgId, association.associationId, range);
}

/** An association's topics by its plain id (the newest `limit`), and whether more exist. */
export async function associationTopics(uow: UnitOfWork<TopicRepositories>, actor: Actor, association: TopicAssociationRef, limit: number): Promise<{ topics: TopicView[]; remaining: boolean }> {
  const page = await listAssociationTopics(uow, actor, association, { limit, before: undefined });
  return { topics: page.rows, remaining: page.hasMore };
}

/** The number of an association's topics. */
export async function countAssociationTopics(uow: UnitOfWork<TopicRepositories>, actor: Actor, association: TopicAssociationRef): Promise<number> {
  const r = uow.repositories();
  const orgId = await readableAssociationOrg(r, actor, association);
  return r.topics.count(orgId, association.associationId);
}

/** The earliest start and latest end of an association's topics. */
export async function associationTimeBounds(uow: UnitOfWork<TopicRepositories>, actor: Actor, association: TopicAssociationRef): Promise<TimeBounds> {
  const r = uow.repositories();
  return r.topics.timeBounds(await readableAssociationOrg(r, actor, association), association.associationId);
}

/** Applies a topic edit, message path changeset included, in one transaction. */
export function updateTopic(uow: UnitOfWork<TopicRepositories>, actor: Actor, topicId: string, edit: TopicEdit): Promise<TopicView> {
  return uow.transaction(async (r) => {
    const topic = await findTopic(r, actor, { topicId }, true);
    if (edit.startTime !== undefined) topic.startTime = edit.startTime;
    if (edit.endTime !== undefined) topic.endTime = edit.endTime;
    if (edit.messageCount !== undefined) topic.messageCount = edit.messageCount;
    if (edit.schemaChecksum !== undefined) topic.schemaChecksum = edit.schemaChecksum;
    if (edit.schemaName !== undefined) topic.schemaName = edit.schemaName;
    if (edit.metadataChangeset) topic.metadata = applyFieldChanges(topic.metadata, edit.metadataChangeset, "metadata_changeset");
    if (edit.messagePaths) await applyPathChangeset(r.topics, topic, edit.messagePaths, actor.subject);
    touch(topic, actor.subject);
    await r.topics.update(topic);
    return (await viewsOf(r.topics, [topic]))[0]!;
  });
}

/** Deletes a topic with its message paths and representations. */
export async function deleteTopic(uow: UnitOfWork<TopicRepositories>, actor: Actor, address: TopicAddress): Promise<void> {
  await uow.transaction(async (r) => r.topics.remove((await findTopic(r, actor, address, true)).topicId));
}

/** Adds a message path to a topic; an existing path of that name is a 409. */
export function addMessagePath(uow: UnitOfWork<TopicRepositories>, actor: Actor, address: TopicAddress, path: NewMessagePath): Promise<MessagePathRow> {
  return uow.transaction(async (r) => {
    const topic = await findTopic(r, actor, address, true);
    const [row] = newMessagePaths(topic, [path], actor.subject, new Date());
    await insertPaths(r.topics, [row!]);
    touch(topic, actor.subject);
    await r.topics.update(topic);
    return row!;
  });
}

/** Edits a message path of a topic. */
export function updateMessagePath(uow: UnitOfWork<TopicRepositories>, actor: Actor, address: TopicAddress, edit: MessagePathEdit): Promise<MessagePathRow> {
  return uow.transaction(async (r) => {
    const topic = await findTopic(r, actor, address, true);
    const row = (await r.topics.messagePaths([topic.topicId])).find((p) => p.messagePath === edit.messagePath);
    if (!row) throw notFound("message path", edit.messagePath);
    await editPath(r.topics, row, edit, actor.subject);
    return row;
  });
}

/** A message path the actor can read. */
export async function getMessagePath(uow: UnitOfWork<TopicRepositories>, actor: Actor, messagePathId: string): Promise<{ path: MessagePathRow; representations: RepresentationRow[] }> {
  const r = uow.repositories();
  const path = actor.orgId ? await r.topics.messagePathById(actor.orgId, messagePathId) : null;
  if (!path) throw notFound("message path", messagePathId);
  const representations = (await r.topics.representations([path.topicId])).filter((rep) => rep.messagePathIds.includes(path.messagePathId));
  return { path, representations };
}

/**
 * Adds a representation holding one message path of the topic. A representation of the same
 * association, storage format and version is reused (the path joins it), so re-stating is harmless.
 */
export function createRepresentation(uow: UnitOfWork<TopicRepositories>, actor: Actor, address: TopicAddress, messagePathId: string, rep: NewRepresentation): Promise<RepresentationRow> {
  checkNonEmpty(messagePathId, "message_path_id");
  return uow.transaction(async (r) => {
    const topic = await findTopic(r, actor, address, true);
    if (!(await r.topics.messagePaths([topic.topicId])).some((p) => p.messagePathId === messagePathId)) throw notFound("message path", messagePathId);
    const row = await representationFor(r, actor, topic, rep);
    if (!row.messagePathIds.includes(messagePathId)) {
      await r.topics.linkRepresentation(row.representationId, [messagePathId]);
      row.messagePathIds.push(messagePathId);
    }
    return row;
  });
}

/** Sets the representation the topic's reads use by default (created when the topic has none like it). */
export function setDefaultRepresentation(uow: UnitOfWork<TopicRepositories>, actor: Actor, address: TopicAddress, rep: NewRepresentation): Promise<RepresentationRow> {
  return uow.transaction(async (r) => {
    const topic = await findTopic(r, actor, address, true);
    const row = await representationFor(r, actor, topic, rep);
    topic.defaultRepresentationId = row.representationId;
    touch(topic, actor.subject);
    await r.topics.update(topic);
    return row;
  });
}

/** A topic's representations, each with the message paths it holds, optionally of one storage format. */
export async function listTopicRepresentations(
  uow: UnitOfWork<TopicRepositories>,
  actor: Actor,
  topicId: string,
  storageFormat: string | undefined,
): Promise<{ messagePaths: MessagePathRow[]; representation: RepresentationRow }[]> {
  if (storageFormat !== undefined) checkOneOf(storageFormat, STORAGE_FORMATS, "storage_format");
  const view = await findView(uow.repositories(), actor, { topicId });
  return view.representations
    .filter((rep) => storageFormat === undefined || rep.storageFormat === storageFormat)
    .map((representation) => ({ representation, messagePaths: view.messagePaths.filter((p) => representation.messagePathIds.includes(p.messagePathId)) }));
}

/** Finds the topic an address names in the actor's readable org; a 404 otherwise. */
export function findTopic(r: TopicRepositories, actor: Actor, address: TopicAddress, lock = false): Promise<TopicRow> {
  return addressed(actor, address, {
    byId: (orgId, topicId) => r.topics.byId(orgId, topicId, lock),
    byName: (orgId, associationId, topicName) => r.topics.byName(orgId, associationId, topicName, lock),
  });
}

/** The topic an address names in the actor's readable org, as a view (one query); a 404 otherwise. */
function findView(r: TopicRepositories, actor: Actor, address: TopicAddress): Promise<TopicView> {
  return addressed(actor, address, {
    byId: async (orgId, topicId) => (await r.topics.views(orgId, { topicIds: [topicId] }))[0] ?? null,
    byName: async (orgId, associationId, topicName) => (await r.topics.views(orgId, { associationId, topicName }))[0] ?? null,
  });
}

/** What an address finds through `lookup` in the actor's org (none without one); a 404 when nothing. */
async function addressed<T>(
  actor: Actor,
  address: TopicAddress,
  lookup: { byId(orgId: string, topicId: string): Promise<T | null>; byName(orgId: string, associationId: string, topicName: string): Promise<T | null> },
): Promise<T> {
  const orgId = actor.orgId;
  if ("topicId" in address) {
    const found = orgId && address.topicId ? await lookup.byId(orgId, address.topicId) : null;
    if (!found) throw notFound("topic", address.topicId);
    return found;
  }
  checkNonEmpty(address.topicName, "url_quoted_topic_name");
  const found = orgId ? await lookup.byName(orgId, address.association.associationId, address.topicName) : null;
  if (!found) throw notFound("topic", address.topicName);
  return found;
}

/** Topics of one org with their message paths and representations: one query for any number of topics. */
export async function viewsOf(topics: TopicRepository, rows: TopicRow[]): Promise<TopicView[]> {
  if (rows.length === 0) return [];
  return topics.views(rows[0]!.orgId, { topicIds: rows.map((t) => t.topicId) });
}

/** Builds checked message path rows of a topic; duplicates within the request are a 400. */
export function newMessagePaths(topic: Pick<TopicRow, "topicId" | "orgId">, paths: readonly NewMessagePath[], subject: string, now: Date): MessagePathRow[] {
  const seen = new Set<string>();
  return paths.map((p) => {
    checkNonEmpty(p.messagePath, `${p.field}.message_path`);
    checkNonEmpty(p.dataType, `${p.field}.data_type`);
    checkOneOf(p.canonicalDataType, CANONICAL_DATA_TYPES, `${p.field}.canonical_data_type`);
    if (seen.has(p.messagePath)) throw invalidArgument(`${p.field}.message_path`, `${quoteValue(p.messagePath)} is listed twice`);
    seen.add(p.messagePath);
    return {
      messagePathId: newId("mp"),
      topicId: topic.topicId,
      orgId: topic.orgId,
      messagePath: p.messagePath,
      sourcePath: p.messagePath,
      pathInSchema: p.pathInSchema.length > 0 ? [...p.pathInSchema] : p.messagePath.split("."),
      dataType: p.dataType,
      canonicalDataType: p.canonicalDataType,
      metadata: p.metadata ?? {},
      created: now,
      createdBy: subject,
      modified: now,
      modifiedBy: subject,
    };
  });
}

async function insertPaths(topics: TopicRepository, rows: MessagePathRow[]): Promise<void> {
  if (rows.length > 0 && !(await topics.insertMessagePaths(rows))) throw conflict("a message path of that name already exists on the topic");
}

async function applyPathChangeset(topics: TopicRepository, topic: TopicRow, change: NonNullable<TopicEdit["messagePaths"]>, subject: string): Promise<void> {
  const now = new Date();
  const added = newMessagePaths(topic, change.add, subject, now);
  if (change.replaceAll) {
    await topics.deleteMessagePaths(topic.topicId, "all");
    await insertPaths(topics, added);
    return;
  }
  if (change.remove.length > 0) await topics.deleteMessagePaths(topic.topicId, change.remove);
  const existing = new Map((await topics.messagePaths([topic.topicId])).map((p) => [p.messagePath, p]));
  for (const edit of change.update) {
    const row = existing.get(edit.messagePath);
    if (!row) throw notFound("message path", edit.messagePath);
    await editPath(topics, row, edit, subject);
  }
  await insertPaths(topics, added);
}

async function editPath(topics: TopicRepository, row: MessagePathRow, edit: MessagePathEdit, subject: string): Promise<void> {
  if (edit.dataType !== undefined) row.dataType = checkNonEmpty(edit.dataType, `${edit.field}.data_type`);
  if (edit.canonicalDataType !== undefined) row.canonicalDataType = checkOneOf(edit.canonicalDataType, CANONICAL_DATA_TYPES, `${edit.field}.canonical_data_type`);
  if (edit.pathInSchema.length > 0) row.pathInSchema = [...edit.pathInSchema];
  if (edit.metadataChangeset) row.metadata = applyFieldChanges(row.metadata, edit.metadataChangeset, `${edit.field}.metadata_changeset`);
  row.modified = new Date();
  row.modifiedBy = subject;
  await topics.updateMessagePath(row);
}

async function representationFor(r: TopicRepositories, actor: Actor, topic: TopicRow, rep: NewRepresentation): Promise<RepresentationRow> {
  checkOneOf(rep.storageFormat, STORAGE_FORMATS, "storage_format");
  if (rep.version < 0n) throw invalidArgument("version", "must not be negative");
  // The representation's data must be something the caller can read in the topic's org.
  const orgId = await associationOrg(r, { ...actor, orgId: topic.orgId }, rep.association);
  const same = (x: RepresentationRow) =>
    x.associationId === rep.association.associationId && x.storageFormat === rep.storageFormat && x.version === rep.version && x.format === (rep.format ?? null);
  const found = (await r.topics.representations([topic.topicId])).find(same);
  if (found) return found;
  const now = new Date();
  const row: RepresentationRow = {
    ...rep.association,
    representationId: newId("rp"),
    topicId: topic.topicId,
    orgId,
    storageFormat: rep.storageFormat,
    version: rep.version,
    format: rep.format ?? null,
    transformations: [...rep.transformations],
    created: now,
    modified: now,
    messagePathIds: [],
  };
  await r.topics.insertRepresentations([row]);
  return row;
}

function touch(topic: TopicRow, subject: string): void {
  topic.modified = new Date();
  topic.modifiedBy = subject;
}
