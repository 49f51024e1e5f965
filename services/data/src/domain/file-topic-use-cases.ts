import { conflict, invalidArgument, newId, notFound, quoteValue, unauthenticated, type UnitOfWork } from "@hangar/shared";
import type { Actor } from "./actor";
import type { FsNodeRow } from "./file-records";
import {
  checkDeclaration,
  ENVELOPE_KINDS,
  schemaChecksum,
  storedSource,
  topicPartId,
  type DeclaredRepresentation,
  type FileExtent,
  type TimelineExtentRow,
  type TopicDeclaration,
} from "./file-topics";
import type { DataRepositories } from "./repositories";
import { MAX_TIME_NS, nanosecondsOf, type TimeInput } from "./time-values";
import { newMessagePaths } from "./topic-use-cases";
import type { MessagePathRow, RepresentationRow, TopicRow } from "./topics";

/** What the file topic use cases reach (sessions: through the hooks, which keep them following the file's topics). */
export type FileTopicRepositories = Pick<DataRepositories, "topics" | "timelines" | "files" | "sessions">;

/** A change to the timelines on one file: its extents as they were before the write. */
export interface FileTopicsChange {
  orgId: string;
  fileId: string;
  before: readonly TimelineExtentRow[];
}

/**
 * The seam where sessions follow file topics: called in the write's transaction whenever the
 * timelines on a file change (registration, calibration). SESSION_BOUNDS_HOOKS (session-bounds.ts)
 * is the platform's; a use case spec may pass its own.
 */
export interface FileTopicsHooks {
  fileTopicsChanged(repositories: FileTopicRepositories, change: FileTopicsChange): Promise<void>;
}

/** The caller of a file topic write, with whether it may edit topics in the org (for default-for-reads sources). */
export interface FileTopicsActor extends Actor {
  canEditTopics: boolean;
}

/**
 * Registers the topics a file carries (register_file_topics). Every refusal of the request as a whole
 * (400 malformed, 404 file or representation file, 401 default-for-reads without topic edit access)
 * is decided before the first write, so a refused request registers nothing; the declarations are
 * then written in one transaction; the registered topics come back in request order.
 */
export async function registerFileTopics(
  uow: UnitOfWork<FileTopicRepositories>,
  actor: FileTopicsActor,
  fileId: string,
  declarations: readonly TopicDeclaration[],
  hooks: FileTopicsHooks,
): Promise<TopicRow[]> {
  checkBatch(declarations.length, "topics");
  declarations.forEach((d, i) => checkDeclaration(d, `topics[${i}]`));
  checkUniqueSlices(declarations);
  return uow.transaction(async (r) => {
    const file = await availableFile(r, actor, fileId);
    await checkRepresentationFiles(r, file.orgId, declarations.flatMap((d) => d.representations));
    if (!actor.canEditTopics && declarations.some((d) => d.sources.some((s) => s.isDefaultForReads !== undefined))) {
      throw unauthenticated("stating is_default_for_reads needs topic edit access in the org");
    }
    const before = await r.timelines.extentsOfFile(file.orgId, file.nodeId);
    const topics = await registerAll(r, actor, file, declarations);
    await hooks.fileTopicsChanged(r, { orgId: file.orgId, fileId: file.nodeId, before });
    return declarations.map((d) => topics.get(d.topicName)!);
  });
}

/** A representation replacement for one topic of a file. */
export interface TopicRepresentationsInput {
  topicName: string;
  dataRange: [bigint, bigint] | null;
  representations: DeclaredRepresentation[];
}

/**
 * Leaves each listed topic of the file with exactly the listed representations (replace_file_topic_representations),
 * all or nothing. A parquet representation for data timed by a message envelope (log or publish time) is a 400.
 */
export async function replaceFileTopicRepresentations(
  uow: UnitOfWork<FileTopicRepositories>,
  actor: Actor,
  fileId: string,
  entries: readonly TopicRepresentationsInput[],
): Promise<void> {
  checkBatch(entries.length, "topics");
  await uow.transaction(async (r) => {
    const file = await availableFile(r, actor, fileId);
    await checkRepresentationFiles(r, file.orgId, entries.flatMap((e) => e.representations));
    const topics = new Map((await r.topics.byNames(file.orgId, file.nodeId, entries.map((e) => e.topicName), true)).map((t) => [t.topicName, t]));
    const extents = await r.timelines.extentsOfFile(file.orgId, file.nodeId);
    entries.forEach((e, i) => {
      const topic = topics.get(e.topicName);
      if (!topic) throw notFound("topic on the file", e.topicName);
      const envelopeTimed = extents.some((x) => x.topicId === topic.topicId && ENVELOPE_KINDS.has(x.sourceKind));
      e.representations.forEach((rep, j) => {
        if (rep.storageFormat === "parquet" && envelopeTimed) {
          throw invalidArgument(`topics[${i}].representations[${j}].storage_format`, "parquet cannot carry data timed by message log or publish time");
        }
      });
    });
    const listed = entries.map((e) => ({ topic: topics.get(e.topicName)!, reps: e.representations }));
    const paths = await r.topics.messagePaths(listed.map((x) => x.topic.topicId));
    await writeRepresentations(r, actor, listed, paths);
  });
}

/** One calibration entry: an offset and the selectors narrowing which extents it touches. */
export interface TimelineOffsetInput {
  offset: TimeInput;
  topicName: string | undefined;
  timelineSourceName: string | undefined;
  timelineSourceId: string | undefined;
}

/**
 * Applies offsets to a file's timeline extents in one transaction (calibrate_file_timelines): later
 * entries win where they overlap; extents already carrying their offset are left alone and not
 * returned; an offset that would put data before the epoch or past 2**63 - 1 ns is a 400 and writes nothing.
 */
export async function calibrateFileTimelines(
  uow: UnitOfWork<FileTopicRepositories>,
  actor: Actor,
  fileId: string,
  entries: readonly TimelineOffsetInput[],
  hooks: FileTopicsHooks,
): Promise<TimelineExtentRow[]> {
  if (entries.length === 0) throw invalidArgument("offsets", "must list at least one offset");
  const offsets = entries.map((e, i) => nanosecondsOf(e.offset, `offsets[${i}].unix_epoch_offset_ns`, 0n));
  return uow.transaction(async (r) => {
    const file = await editableFile(r, actor, fileId);
    const extents = await r.timelines.extentsOfFile(file.orgId, file.nodeId);
    if (extents.length === 0) throw notFound("registered topic data on file", fileId);
    // Each reached extent with the entry that reaches it last (later entries win).
    const target = new Map<FileExtent, number>();
    entries.forEach((e, i) => extents.filter((x) => reaches(e, x)).forEach((x) => target.set(x, i)));
    if (target.size === 0) throw notFound("timeline extent on file", fileId);
    const changed = [...target].filter(([x, i]) => x.unixEpochOffsetNs !== offsets[i]);
    changed.forEach(([x, i]) => checkShift(x, offsets[i]!, `offsets[${i}].unix_epoch_offset_ns`));
    const now = new Date();
    const rows = changed.map(([x, i]) => ({ ...stripSelectors(x), unixEpochOffsetNs: offsets[i]!, modified: now, modifiedBy: actor.subject }));
    await r.timelines.setOffsets(rows);
    await r.timelines.recomputeTopicBounds([...new Set(changed.map(([x]) => x.topicId))]);
    if (rows.length > 0) await hooks.fileTopicsChanged(r, { orgId: file.orgId, fileId: file.nodeId, before: extents });
    return rows;
  });
}

function reaches(e: TimelineOffsetInput, x: FileExtent): boolean {
  return (
    (e.topicName === undefined || e.topicName === x.topicName) &&
    (e.timelineSourceName === undefined || e.timelineSourceName === x.sourceName) &&
    (e.timelineSourceId === undefined || e.timelineSourceId === x.timelineSourceId)
  );
}

/** Refuses an offset that would move the extent's data before the epoch or past 2**63 - 1 ns (a 400 naming `field`). */
export function checkShift(x: FileExtent, offset: bigint, field: string): void {
  if ((x.maxTimestamp ?? 0n) + offset > MAX_TIME_NS) throw invalidArgument(field, "would move data past 2**63 - 1 ns");
  if ((x.minTimestamp ?? 0n) + offset < 0n) throw invalidArgument(field, "would move data before the Unix epoch");
}

/** The extent row of a file extent, without what selectors match on. */
export function stripSelectors(x: FileExtent): TimelineExtentRow {
  const { topicId: _t, topicName: _n, sourceName: _s, sourceKind: _k, ...row } = x;
  return row;
}

function checkBatch(count: number, field: string): void {
  if (count < 1 || count > 500) throw invalidArgument(field, "must list 1 to 500 items");
}

function checkUniqueSlices(declarations: readonly TopicDeclaration[]): void {
  const seen = new Set<string>();
  const anchors = new Map<string, bigint>();
  declarations.forEach((d, i) => {
    const slice = d.dataRange ? d.dataRange.join("-") : "*";
    if (seen.has(`${d.topicName}\0${slice}`)) throw invalidArgument(`topics[${i}]`, `topic ${quoteValue(d.topicName)} is declared twice over the same part of the file`);
    seen.add(`${d.topicName}\0${slice}`);
    if (d.anchorNs === null) return;
    const stated = anchors.get(slice) ?? d.anchorNs;
    if (stated !== d.anchorNs) throw invalidArgument(`topics[${i}].anchor_ns`, "topics sharing a part of the file must state the same anchor");
    anchors.set(slice, stated);
  });
}

/** The file as a write to its topics needs it: a file of the caller's org (404 otherwise). */
async function editableFile(r: FileTopicRepositories, actor: Actor, fileId: string): Promise<FsNodeRow> {
  const file = actor.orgId && fileId ? await r.files.findNode(actor.orgId, fileId) : null;
  if (!file || file.fsType !== "file") throw notFound("file", fileId);
  return file;
}

/** An editable file that is `available` (a 404 while its upload is open). */
async function availableFile(r: FileTopicRepositories, actor: Actor, fileId: string): Promise<FsNodeRow> {
  const file = await editableFile(r, actor, fileId);
  if (file.status !== "available") throw notFound("available file", fileId);
  return file;
}

/** Every file a representation names must be an available file of the org (one query). */
async function checkRepresentationFiles(r: FileTopicRepositories, orgId: string, reps: readonly DeclaredRepresentation[]): Promise<void> {
  const ids = [...new Set(reps.map((rep) => rep.fileId))];
  if (ids.length === 0) return;
  const found = await r.files.nodesByIds(orgId, ids);
  const missing = ids.find((id) => found.get(id)?.fsType !== "file" || found.get(id)?.status !== "available");
  if (missing !== undefined) throw notFound("available file", missing);
}

/**
 * Writes every declaration in a fixed number of statements whatever their count (issue 11's rule):
 * the file's topics (created or restated), their new message paths, timeline sources and extents,
 * and the representations of the topics that list any; then the topics' times from their extents.
 */
async function registerAll(r: FileTopicRepositories, actor: Actor, file: FsNodeRow, declarations: readonly TopicDeclaration[]): Promise<Map<string, TopicRow>> {
  const now = new Date();
  const names = [...new Set(declarations.map((d) => d.topicName))];
  const existing = new Map((await r.topics.byNames(file.orgId, file.nodeId, names, true)).map((t) => [t.topicName, t]));
  const topics = new Map(names.map((name) => [name, existing.get(name) ?? newFileTopic(actor, file, name, now)]));
  for (const d of declarations) {
    const topic = topics.get(d.topicName)!;
    topic.schemaName = d.schemaName ?? topic.schemaName;
    topic.schemaChecksum = schemaChecksum(d.fields);
    topic.modified = now;
    topic.modifiedBy = actor.subject;
  }
  const all = [...topics.values()];
  if (!(await r.topics.saveAll(all))) throw conflict("a topic of this request was declared on the file concurrently; retry");
  const paths = await addSchemaPaths(r, actor, topics, declarations, now);
  await writeTimelines(r, actor, file, topics, declarations, now);
  const withReps = declarations.filter((d) => d.representations.length > 0);
  const listed = [...new Set(withReps.map((d) => d.topicName))].map((name) => ({
    topic: topics.get(name)!,
    reps: withReps.filter((d) => d.topicName === name).flatMap((d) => d.representations),
  }));
  await writeRepresentations(r, actor, listed, paths);
  await r.timelines.recomputeTopicBounds(all.map((t) => t.topicId));
  return topics;
}

function newFileTopic(actor: Actor, file: FsNodeRow, topicName: string, now: Date): TopicRow {
  return {
    topicId: newId("tp"),
    orgId: file.orgId,
    associationType: "file",
    associationId: file.nodeId,
    associationVersion: null,
    topicName,
    schemaName: null,
    schemaChecksum: null,
    schemaId: null,
    startTime: null,
    endTime: null,
    messageCount: null,
    metadata: {},
    defaultRepresentationId: null,
    created: now,
    createdBy: actor.subject,
    modified: now,
    modifiedBy: actor.subject,
  };
}

/** Adds the declared fields the topics lack as message paths; returns every path of the topics. */
async function addSchemaPaths(r: FileTopicRepositories, actor: Actor, topics: Map<string, TopicRow>, declarations: readonly TopicDeclaration[], now: Date): Promise<MessagePathRow[]> {
  const existing = await r.topics.messagePaths([...topics.values()].map((t) => t.topicId));
  const known = new Set(existing.map((p) => `${p.topicId}\0${p.messagePath}`));
  const added: MessagePathRow[] = [];
  for (const d of declarations) {
    const topic = topics.get(d.topicName)!;
    const fresh = d.fields
      .filter((f) => !known.has(`${topic.topicId}\0${f.path.join(".")}`))
      .map((f, i) => ({ messagePath: f.path.join("."), dataType: f.dataType, canonicalDataType: f.canonicalDataType, pathInSchema: f.path, field: `topic_schema.fields[${i}]` }));
    for (const row of newMessagePaths(topic, fresh, actor.subject, now)) {
      known.add(`${topic.topicId}\0${row.messagePath}`);
      added.push(row);
    }
  }
  if (added.length > 0) await r.topics.insertMessagePaths(added);
  return [...existing, ...added];
}

/** Stores the declared sources and their extents over each declared slice; an extent without an anchor keeps its offset. */
async function writeTimelines(r: FileTopicRepositories, actor: Actor, file: FsNodeRow, topics: Map<string, TopicRow>, declarations: readonly TopicDeclaration[], now: Date): Promise<void> {
  const offsets = new Map((await r.timelines.extentsOfFile(file.orgId, file.nodeId)).map((x) => [`${x.topicId}\0${x.sourceName}\0${x.topicPartId}`, x.unixEpochOffsetNs]));
  const planned = declarations.flatMap((d) => {
    const topic = topics.get(d.topicName)!;
    const part = topicPartId(topic.topicId, file.nodeId, d.dataRange);
    return d.sources.map((s) => {
      const { kind, name } = storedSource(s);
      const source = { timelineSourceId: newId("ts"), topicId: topic.topicId, orgId: topic.orgId, name, kind, fieldPath: s.kind === "field" ? s.fieldPath : [], isDefaultForReads: s.isDefaultForReads ?? false };
      const offset = d.anchorNs ?? offsets.get(`${topic.topicId}\0${name}\0${part}`) ?? 0n;
      return { source, part, declared: s, offset, range: d.dataRange };
    });
  });
  // One row per topic and source name: a topic declared over several slices shares its sources.
  const unique = [...new Map(planned.map((p) => [`${p.source.topicId}\0${p.source.name}`, p.source])).values()];
  const stored = new Map((await r.timelines.upsertSources(unique)).map((x) => [`${x.topicId}\0${x.name}`, x]));
  const sources = planned.map((p) => stored.get(`${p.source.topicId}\0${p.source.name}`)!);
  await r.timelines.setDefaults(sources.filter((_, i) => planned[i]!.declared.isDefaultForReads === true));
  await r.timelines.upsertExtents(
    planned.map((p, i) => ({
      timelineExtentId: newId("te"),
      timelineSourceId: sources[i]!.timelineSourceId,
      topicPartId: p.part,
      fileId: file.nodeId,
      dataRange: p.range,
      orgId: file.orgId,
      minTimestamp: p.declared.minFileTimestampNs,
      maxTimestamp: p.declared.maxFileTimestampNs,
      unixEpochOffsetNs: p.offset,
      created: now,
      createdBy: actor.subject,
      modified: now,
      modifiedBy: actor.subject,
    })),
  );
}

/**
 * Leaves each listed topic with exactly its listed representations, each holding the paths under
 * its `field_path` (all when empty), the first being the default; a fixed number of statements.
 */
async function writeRepresentations(
  r: FileTopicRepositories,
  actor: Actor,
  listed: readonly { topic: TopicRow; reps: readonly DeclaredRepresentation[] }[],
  paths: readonly MessagePathRow[],
): Promise<void> {
  if (listed.length === 0) return;
  const now = new Date();
  await r.topics.deleteRepresentationsOf(listed.map((x) => x.topic.topicId));
  const rows = listed.flatMap(({ topic, reps }) => {
    const own = paths.filter((p) => p.topicId === topic.topicId);
    const made = reps.map((rep) => representationRow(topic, rep, own, now));
    topic.defaultRepresentationId = made[0]?.representationId ?? null;
    topic.modified = now;
    topic.modifiedBy = actor.subject;
    return made;
  });
  await r.topics.saveAll(listed.map((x) => x.topic));
  await r.topics.insertRepresentations(rows);
}

function representationRow(topic: TopicRow, rep: DeclaredRepresentation, paths: readonly MessagePathRow[], now: Date): RepresentationRow {
  const prefix = rep.fieldPath.join(".");
  const held = paths.filter((p) => prefix === "" || p.messagePath === prefix || p.messagePath.startsWith(`${prefix}.`));
  return {
    representationId: newId("rp"),
    topicId: topic.topicId,
    orgId: topic.orgId,
    associationType: "file",
    associationId: rep.fileId,
    associationVersion: null,
    storageFormat: rep.storageFormat,
    version: 1n,
    format: rep.contentFormat ?? null,
    transformations: rep.transformations,
    created: now,
    modified: now,
    messagePathIds: held.map((p) => p.messagePathId),
  };
}
