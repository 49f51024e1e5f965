import { badRequest, invalidArgument, notFound, quoteValue, type UnitOfWork } from "@hangar/shared";
import type { Actor } from "./actor";
import type { FsNodeRow } from "./file-records";
import type { FileExtent, TimelineSourceRow } from "./file-topics";
import type { DataRepositories } from "./repositories";
import type { SessionFileEntry } from "./sessions";
import { findSession } from "./session-use-cases";
import { fieldIdOf, schemaIdOf } from "./topic-reads";
import { findTopic } from "./topic-use-cases";
import type { MessagePathRow, RepresentationRow, TopicRow } from "./topics";

/**
 * resolve_read_plan (sdk-0.62-routes.md row 49): the read of one topic over a window, within
 * the restrictions the request names, resolved into the parts of the topic's data to read (one
 * partition per part: a slice of one file, with its offset and the window its rows are selected
 * in) and the representations to read them from.
 */
export type ReadPlanRepositories = Pick<DataRepositories, "topics" | "topicReads" | "timelines" | "files" | "sessions" | "datasets" | "devices">;

/** A field subtree named by path components or by field id (exactly one; an empty path is the root). */
export interface FieldAddress {
  path: string[];
  fieldId: string | undefined;
}

/** What a representation must be; an undefined criterion places no requirement. */
export interface RepresentationSelector {
  storageFormat: string | undefined;
  contentFormat: string | undefined;
  /** `[]` requires the untransformed original. */
  transformations: string[] | undefined;
}

export interface ReadPlanQuery {
  startTime: bigint | undefined;
  endTime: bigint | undefined;
  fieldsInclude: FieldAddress[];
  fieldsExclude: FieldAddress[];
  preferDefault: RepresentationSelector | undefined;
  preferOverrides: { field: FieldAddress; selector: RepresentationSelector }[];
  schemaId: string | undefined;
  schemaChecksum: string | undefined;
  timelineSourceId: string | undefined;
  timelineSourceName: string | undefined;
  sessionId: string | undefined;
  fileId: string | undefined;
  datasetId: string | undefined;
  deviceId: string | undefined;
}

export interface Window {
  start: bigint;
  end: bigint;
}

export interface FieldRef {
  fieldId: string;
  path: string[];
}

export interface ScanTask {
  subtree: FieldRef | null;
  precedence: number;
  format: string;
  transformations: string[];
  fsNodeId: string;
  sizeBytes: bigint | null;
  topicName: string;
}

export interface PlanPartition {
  topicPartId: string;
  timeOffsetNs: bigint;
  window: Window;
  /** The span of the part's data in Unix time (stored bounds plus offset). */
  extent: Window;
  timestamp: { kind: string; field: FieldRef | null };
  dataRange: [bigint, bigint] | null;
  scanTasks: ScanTask[];
  fsNodeId: string;
}

export interface ReadPlan {
  topicId: string;
  window: Window | null;
  schema: { schemaId: string; checksum: string } | null;
  /** null projects every field. */
  projection: FieldRef[] | null;
  partitions: PlanPartition[];
}

/** One part of the topic in scope, with the Unix window the scope reads of its file (null: all of it). */
interface ScopedExtent {
  extent: FileExtent;
  scope: Window | null;
}

const STORED_KINDS: Record<string, string> = { field: "schema_field", message_log_time: "message_log_time", message_publish_time: "message_publish_time" };

/** Resolves the plan; every refusal (400 malformed, 404 topic or restriction not of the org) writes nothing. */
export async function resolveReadPlan(uow: UnitOfWork<ReadPlanRepositories>, actor: Actor, topicId: string, query: ReadPlanQuery): Promise<ReadPlan> {
  checkQuery(query);
  const r = uow.repositories();
  const topic = await findTopic(r, actor, { topicId });
  checkSchema(topic, query);
  const paths = await r.topics.messagePaths([topic.topicId]);
  const fields = paths.map((p) => ({ fieldId: fieldIdOf(topic.schemaChecksum ?? "", p.pathInSchema), path: p.pathInSchema }));
  const projection = projectionOf(fields, query);
  const scoped = await scopedExtents(r, actor, topic, query);
  const source = chooseSource(await r.topicReads.sources(topic.topicId), query);
  const window = planWindow(scoped, query);
  const inWindow = window ? scoped.filter((x) => x.extent.timelineSourceId === source?.timelineSourceId) : [];
  const tasks = inWindow.length > 0 ? await scanTasks(r, topic, paths, fields, query) : [];
  const partitions = window ? partitionsOf(inWindow, window, source, fields, tasks) : [];
  return {
    topicId: topic.topicId,
    window,
    schema: partitions.length > 0 && topic.schemaChecksum ? { schemaId: schemaIdOf(topic.schemaChecksum), checksum: topic.schemaChecksum } : null,
    projection,
    partitions,
  };
}

/**
 * The plan as API versions before 2026-10-05 read it: a partition has no window of its own (rows
 * are selected by the plan's window), so a plan whose partitions need one (a session holding part
 * of a file) or that packs several partitions into one file cannot be given: a 400.
 */
export function checkExtentShape(plan: ReadPlan): void {
  const files = new Set<string>();
  for (const p of plan.partitions) {
    if (files.has(p.fsNodeId) || p.dataRange !== null) throw badRequest(`file ${quoteValue(p.fsNodeId)} holds several parts of the topic; read it with API version 2026-10-05 or later`);
    files.add(p.fsNodeId);
    if (p.window.start !== plan.window!.start || p.window.end !== plan.window!.end) {
      throw badRequest(`the read covers part of file ${quoteValue(p.fsNodeId)} only; read it with API version 2026-10-05 or later`);
    }
  }
}

function checkQuery(q: ReadPlanQuery): void {
  if (q.startTime !== undefined && q.startTime < 0n) throw invalidArgument("start_time", "must not be before the Unix epoch");
  if (q.startTime !== undefined && q.endTime !== undefined && q.endTime < q.startTime) throw invalidArgument("end_time", "must not be before start_time");
  const defaultable = q.fileId !== undefined || q.datasetId !== undefined || q.deviceId !== undefined;
  if (!defaultable && q.startTime === undefined) throw invalidArgument("start_time", "is required unless the request names a file_id, dataset_id or device_id");
  if (!defaultable && q.endTime === undefined) throw invalidArgument("end_time", "is required unless the request names a file_id, dataset_id or device_id");
  if (q.schemaId !== undefined && q.schemaChecksum !== undefined) throw invalidArgument("schema_checksum", "give at most one of schema_id and schema_checksum");
  if (q.timelineSourceId !== undefined && q.timelineSourceName !== undefined) throw invalidArgument("timeline_source_name", "give at most one of timeline_source_id and timeline_source_name");
  q.fieldsInclude.forEach((a, i) => checkAddress(a, `fields_include[${i}]`));
  q.fieldsExclude.forEach((a, i) => checkAddress(a, `fields_exclude[${i}]`));
  q.preferOverrides.forEach((o, i) => checkAddress(o.field, `prefer.overrides[${i}].field`));
}

function checkAddress(a: FieldAddress, at: string): void {
  if (a.fieldId !== undefined && a.path.length > 0) throw invalidArgument(at, "give exactly one of path and field_id");
}

function checkSchema(topic: TopicRow, q: ReadPlanQuery): void {
  const checksum = topic.schemaChecksum ?? "";
  if (q.schemaId !== undefined && q.schemaId !== schemaIdOf(checksum)) throw invalidArgument("schema_id", "is not the schema of the topic's data");
  if (q.schemaChecksum !== undefined && q.schemaChecksum !== checksum) throw invalidArgument("schema_checksum", "is not the checksum of the topic's schema");
}

/** The fields an address names: the field at its path (or id) and every field under it. */
function subtreeOf(fields: readonly FieldRef[], a: FieldAddress, at: string): FieldRef[] {
  const path = a.fieldId === undefined ? a.path : fields.find((f) => f.fieldId === a.fieldId)?.path;
  if (path === undefined) throw invalidArgument(`${at}.field_id`, "names no field of the topic's schema");
  const under = fields.filter((f) => path.every((part, i) => f.path[i] === part));
  if (under.length === 0) throw invalidArgument(`${at}.path`, "names no field of the topic's schema");
  return under;
}

function projectionOf(fields: readonly FieldRef[], q: ReadPlanQuery): FieldRef[] | null {
  if (q.fieldsInclude.length === 0 && q.fieldsExclude.length === 0) return null;
  const included = q.fieldsInclude.length === 0 ? new Set(fields) : new Set(q.fieldsInclude.flatMap((a, i) => subtreeOf(fields, a, `fields_include[${i}]`)));
  const excluded = new Set(q.fieldsExclude.flatMap((a, i) => subtreeOf(fields, a, `fields_exclude[${i}]`)));
  return fields.filter((f) => included.has(f) && !excluded.has(f));
}

/** The timeline source rows are selected by: the named one, else the default for reads, else the only one. */
function chooseSource(sources: readonly TimelineSourceRow[], q: ReadPlanQuery): TimelineSourceRow | undefined {
  if (q.timelineSourceId !== undefined) {
    const named = sources.find((s) => s.timelineSourceId === q.timelineSourceId);
    if (!named) throw notFound("timeline source of the topic", q.timelineSourceId);
    return named;
  }
  if (q.timelineSourceName !== undefined) {
    const named = sources.find((s) => s.name === q.timelineSourceName);
    if (!named) throw notFound("timeline source of the topic", q.timelineSourceName);
    return named;
  }
  const chosen = sources.find((s) => s.isDefaultForReads) ?? (sources.length === 1 ? sources[0] : undefined);
  if (!chosen && sources.length > 1) throw invalidArgument("timeline_source_name", `the topic has ${sources.length} timeline sources and none is the default for reads; name one`);
  return chosen;
}

/** The topic's parts within every restriction the query names (they intersect); a named restriction not of the org is a 404. */
async function scopedExtents(r: ReadPlanRepositories, actor: Actor, topic: TopicRow, q: ReadPlanQuery): Promise<ScopedExtent[]> {
  const orgId = topic.orgId;
  const extents = (await r.timelines.extentsOfFile(orgId, topic.associationId)).filter((x) => x.topicId === topic.topicId);
  const files = await r.files.nodesByIds(orgId, [...new Set(extents.map((x) => x.fileId))]);
  const links = q.sessionId === undefined ? undefined : await sessionLinks(r, actor, q.sessionId);
  await checkRestrictions(r, orgId, q);
  const deviceOf = await fileDevices(r, orgId, [...files.values()], q.deviceId !== undefined);
  const scoped: ScopedExtent[] = [];
  for (const extent of extents) {
    const file = files.get(extent.fileId);
    if (!file) continue;
    if (q.fileId !== undefined && file.nodeId !== q.fileId) continue;
    if (q.datasetId !== undefined && file.associationId !== q.datasetId) continue;
    if (q.deviceId !== undefined && deviceOf.get(file.nodeId) !== q.deviceId) continue;
    if (!links) {
      scoped.push({ extent, scope: null });
      continue;
    }
    const link = links.get(extent.fileId);
    if (link && sliceHolds(link, extent)) scoped.push({ extent, scope: linkWindow(link) });
  }
  return scoped;
}

async function sessionLinks(r: ReadPlanRepositories, actor: Actor, sessionId: string): Promise<Map<string, SessionFileEntry>> {
  const session = await findSession(r, actor, sessionId);
  return new Map((await r.sessions.files(session.sessionId)).map((f) => [f.fileId, f]));
}

async function checkRestrictions(r: ReadPlanRepositories, orgId: string, q: ReadPlanQuery): Promise<void> {
  if (q.fileId !== undefined && !(await r.files.findNode(orgId, q.fileId))) throw notFound("file", q.fileId);
  if (q.datasetId !== undefined && !(await r.datasets.find(orgId, q.datasetId))) throw notFound("dataset", q.datasetId);
  if (q.deviceId !== undefined && !(await r.devices.find(orgId, q.deviceId))) throw notFound("device", q.deviceId);
}

/** Each file's device: the one it names, else its dataset's (read only when a device restriction needs it). */
async function fileDevices(r: ReadPlanRepositories, orgId: string, files: readonly FsNodeRow[], needed: boolean): Promise<Map<string, string | null>> {
  const devices = new Map<string, string | null>();
  if (!needed) return devices;
  for (const file of files) devices.set(file.nodeId, file.deviceId ?? (await r.datasets.find(orgId, file.associationId))?.deviceId ?? null);
  return devices;
}

/** Whether the slice a session holds of a file covers the extent's slice (no slice on either side: all of it). */
export function sliceHolds(link: SessionFileEntry, x: FileExtent): boolean {
  return link.dataRange === null || x.dataRange === null || (x.dataRange[0] < link.dataRange[1] && link.dataRange[0] < x.dataRange[1]);
}

/** The window a session holds of a file, in Unix time (file time plus the link's anchor); null when it holds all of it. */
export function linkWindow(link: SessionFileEntry): Window | null {
  if (link.window === null) return null;
  const anchor = link.unixEpochOffsetNs ?? 0n;
  return { start: link.window[0] + anchor, end: link.window[1] + anchor };
}

/** The span of a part's data in Unix time, within what the scope reads of it. */
function dataSpan(x: ScopedExtent): Window | null {
  if (x.extent.minTimestamp === null || x.extent.maxTimestamp === null) return null;
  const span = { start: x.extent.minTimestamp + x.extent.unixEpochOffsetNs, end: x.extent.maxTimestamp + x.extent.unixEpochOffsetNs };
  return x.scope ? intersect(span, x.scope) : span;
}

/** The window the plan resolves over: the query's bounds, an omitted one defaulting to the data's (every source); null when empty. */
function planWindow(scoped: readonly ScopedExtent[], q: ReadPlanQuery): Window | null {
  const spans = scoped.map(dataSpan).filter((s): s is Window => s !== null);
  const start = q.startTime ?? min(spans.map((s) => s.start));
  const end = q.endTime ?? max(spans.map((s) => s.end));
  if (start === undefined || end === undefined || end < start) return null;
  return { start, end };
}

function partitionsOf(scoped: readonly ScopedExtent[], window: Window, source: TimelineSourceRow | undefined, fields: readonly FieldRef[], tasks: ScanTask[]): PlanPartition[] {
  const timestampField = source?.kind === "field" ? (fields.find((f) => f.path.join("\0") === source.fieldPath.join("\0")) ?? null) : null;
  const partitions: PlanPartition[] = [];
  for (const x of scoped) {
    const span = dataSpan(x);
    const selected = intersect(window, x.scope ?? window);
    if (!span || !selected || !intersect(span, selected)) continue;
    partitions.push({
      topicPartId: x.extent.topicPartId,
      timeOffsetNs: x.extent.unixEpochOffsetNs,
      window: selected,
      extent: span,
      timestamp: { kind: STORED_KINDS[source!.kind] ?? source!.kind, field: timestampField },
      dataRange: x.extent.dataRange,
      scanTasks: tasks,
      fsNodeId: x.extent.fileId,
    });
  }
  // By where each file's data begins; a file's parts together, by where their slice starts.
  return partitions.sort((a, b) => cmp(a.extent.start, b.extent.start) || a.fsNodeId.localeCompare(b.fsNodeId) || cmp(a.dataRange?.[0] ?? 0n, b.dataRange?.[0] ?? 0n));
}

/**
 * The files to read: a representation holding every field for the whole schema, and one for each
 * override's subtree, each the first (the topic's default first) that its governing selector
 * matches. A selector that sets a criterion and matches nothing is a 400; one that sets none and
 * finds nothing leaves the fields unread.
 */
async function scanTasks(r: ReadPlanRepositories, topic: TopicRow, paths: readonly MessagePathRow[], fields: readonly FieldRef[], q: ReadPlanQuery): Promise<ScanTask[]> {
  const reps = (await r.topics.representations([topic.topicId])).sort((a, b) => Number(b.representationId === topic.defaultRepresentationId) - Number(a.representationId === topic.defaultRepresentationId));
  const sizes = await r.files.nodesByIds(topic.orgId, [...new Set(reps.map((rep) => rep.associationId))]);
  const task = (rep: RepresentationRow, subtree: FieldRef | null, precedence: number): ScanTask => {
    const size = sizes.get(rep.associationId)?.size;
    return { subtree, precedence, format: rep.storageFormat, transformations: rep.transformations, fsNodeId: rep.associationId, sizeBytes: size ? BigInt(size) : null, topicName: topic.topicName };
  };
  const holding = (subtree: readonly FieldRef[]) => {
    const keys = new Set(subtree.map((f) => f.path.join("\0")));
    const ids = paths.filter((p) => keys.has(p.pathInSchema.join("\0"))).map((p) => p.messagePathId);
    return reps.filter((rep) => ids.every((id) => rep.messagePathIds.includes(id)));
  };
  const tasks: ScanTask[] = [];
  const whole = pick(holding(fields), q.preferDefault, "prefer.default");
  if (whole) tasks.push(task(whole, null, 0));
  q.preferOverrides.forEach((o, i) => {
    const under = subtreeOf(fields, o.field, `prefer.overrides[${i}].field`);
    const root = under.reduce((a, b) => (a.path.length <= b.path.length ? a : b));
    const chosen = pick(holding(under), o.selector, `prefer.overrides[${i}].selector`);
    if (chosen) tasks.push(task(chosen, root.path.length === 0 ? null : root, root.path.length + 1));
  });
  return tasks;
}

function pick(reps: readonly RepresentationRow[], selector: RepresentationSelector | undefined, at: string): RepresentationRow | undefined {
  const chosen = reps.find((rep) => matches(selector, rep));
  const demanding = selector && (selector.storageFormat !== undefined || selector.contentFormat !== undefined || selector.transformations !== undefined);
  if (!chosen && demanding) throw invalidArgument(at, "no stored representation of the requested fields matches");
  return chosen;
}

/** The selector's rule (SDK 0.62's RepresentationSelector.matches): every set criterion must hold. */
export function matches(selector: RepresentationSelector | undefined, rep: RepresentationRow): boolean {
  if (!selector) return true;
  if (selector.storageFormat !== undefined && rep.storageFormat !== selector.storageFormat) return false;
  if (selector.contentFormat !== undefined && rep.format !== selector.contentFormat) return false;
  const wanted = selector.transformations;
  if (wanted === undefined) return true;
  if (wanted.length === 0) return rep.transformations.length === 0;
  return wanted.every((token) => (token.includes(":") ? rep.transformations.includes(token) : rep.transformations.some((d) => d.split(":", 1)[0] === token)));
}

function intersect(a: Window, b: Window): Window | null {
  const start = a.start > b.start ? a.start : b.start;
  const end = a.end < b.end ? a.end : b.end;
  return start <= end ? { start, end } : null;
}

function min(values: readonly bigint[]): bigint | undefined {
  return values.reduce<bigint | undefined>((m, v) => (m === undefined || v < m ? v : m), undefined);
}

function max(values: readonly bigint[]): bigint | undefined {
  return values.reduce<bigint | undefined>((m, v) => (m === undefined || v > m ? v : m), undefined);
}

function cmp(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
