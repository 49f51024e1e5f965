import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { derivedFilesDir } from "@hangar/shared";
import { uploadOutputs, type GatewayClient } from "@hangar/runner";
import { ingestMcap } from "./ingest-mcap";
import { withMcapRepresentations, type IngestManifest, type TopicManifest } from "./manifest";
import { createDirectorySink } from "./sink";
import { openFileSource } from "./source";

/** An input file of the invocation, as the runner's inputs manifest lists it. */
export interface InputFile {
  fileId: string;
  relativePath: string;
  /** Where the runner downloaded it. */
  localPath: string;
}

/** What ingesting one input file needs: the gateway with the invocation's token, its dataset and a log. */
export interface ActionContext {
  gateway: GatewayClient;
  datasetId: string;
  invocationId: string;
  log: (line: string) => void;
  signal: AbortSignal;
}

/** register_file_topics takes at most this many declarations a call (endpoints.md, Limits). */
const REGISTER_BATCH = 500;

interface RegisteredTopic {
  data: { topic_id: string } | null;
  error: { message?: string } | null;
}

/**
 * Ingests one MCAP input: splits it into per-topic MCAP files (nothing is written to the platform
 * when the file does not read), uploads them under the source's derived-files directory (the same
 * paths on every run, so re-ingesting writes new versions of the same files), registers the topics
 * with each derived file as its `mcap` representation, records each topic's own facts and marks
 * the file `ingestion_complete`. When a step after the split fails, the topics and derived files
 * it created are removed again before the error is rethrown; those an earlier ingestion of the file
 * left stay where they were.
 */
export async function ingestInputFile(context: ActionContext, input: InputFile): Promise<IngestManifest> {
  const workDir = await mkdtemp(path.join(tmpdir(), "hangar-ingest-"));
  try {
    const outDir = path.join(workDir, "derived");
    const source = await openFileSource(input.localPath);
    const manifest = await ingestMcap(source, createDirectorySink(outDir)).finally(() => source.close());
    context.log(`${input.relativePath}: ${manifest.topics.length} topics, ${manifest.topics.reduce((n, t) => n + t.message_count, 0)} messages`);
    await publish(context, input, manifest, outDir);
    return manifest;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** What a run wrote: the derived files it created (not those it rewrote) and the topics it registered. */
interface Written {
  createdDerived: Set<string>;
  topics: string[];
}

async function publish(context: ActionContext, input: InputFile, manifest: IngestManifest, outDir: string): Promise<void> {
  const earlier = await fileTopics(context, input.fileId);
  const earlierIds = new Set(earlier.map((topic) => topic.topic_id));
  const written: Written = { createdDerived: new Set(), topics: [] };
  try {
    const fileIds = await uploadDerived(context, input, outDir, written);
    const declared = withMcapRepresentations(manifest, (name) => fileIds.get(name)!);
    for (let i = 0; i < declared.topics.length; i += REGISTER_BATCH) {
      await registerBatch(context, input.fileId, declared.topics.slice(i, i + REGISTER_BATCH), written);
    }
    const registered = new Set(manifest.topics.map((topic) => topic.topic_name));
    await removeStaleTopics(context, input.fileId, earlier.filter((topic) => !registered.has(topic.topic_name)), new Set(fileIds.values()));
    await context.gateway.call("PUT", `/v1/files/record/${encodeURIComponent(input.fileId)}`, { ingestion_complete: true }, context.signal);
  } catch (error) {
    await undo(context, input, written, earlierIds);
    throw error;
  }
}

/** Uploads the derived files into the dataset; answers their file ids by derived file name. */
async function uploadDerived(context: ActionContext, input: InputFile, outDir: string, written: Pick<Written, "createdDerived">): Promise<Map<string, string>> {
  const prefix = derivedFilesDir(input.fileId);
  const origination = `invocation ${context.invocationId}`;
  const paths = await uploadOutputs(context.gateway, outDir, { datasetId: context.datasetId, prefix, origination }, context.signal);
  const ids = new Map<string, string>();
  for (const derivedPath of paths) {
    const url = `/v1/files/record/path/${encodeURIComponent(derivedPath)}/association/${encodeURIComponent(context.datasetId)}`;
    const file = await context.gateway.call<{ file_id: string; version: number }>("GET", url, undefined, context.signal);
    // A first version is this run's; a later one rewrote an earlier run's file, which stays on failure.
    if (file.version === 1) written.createdDerived.add(file.file_id);
    ids.set(path.posix.basename(derivedPath), file.file_id);
  }
  return ids;
}

/** Registers a batch of topics (their times follow the log-time extents), then sets the facts register_file_topics does not take. */
async function registerBatch(context: ActionContext, fileId: string, topics: TopicManifest[], written: { topics: string[] }): Promise<void> {
  const body = { topics: topics.map(({ topic_name, topic_schema, timeline_sources, data_range, representations }) => ({ topic_name, topic_schema, timeline_sources, data_range, representations })) };
  const { responses } = await context.gateway.call<{ responses: RegisteredTopic[] }>("POST", `/v1/files/id/${encodeURIComponent(fileId)}/topics`, jsonWithBigInts(body), context.signal);
  responses.forEach((response) => response.data && written.topics.push(response.data.topic_id));
  const refused = responses.findIndex((response) => !response.data);
  if (refused >= 0) throw new Error(`registering topic ${JSON.stringify(topics[refused]!.topic_name.slice(0, 200))} was refused: ${responses[refused]!.error?.message ?? "no reason given"}`);
  for (const [i, topic] of topics.entries()) {
    // Registration computes a checksum of the declared fields; the topic records the schema's own.
    const facts = { message_count: topic.message_count, schema_checksum: topic.schema_checksum, schema_name: topic.schema_name };
    await context.gateway.call("PUT", `/v1/topics/id/${encodeURIComponent(responses[i]!.data!.topic_id)}`, jsonWithBigInts(facts), context.signal);
  }
}

/** The file's topics as they are now (every page). */
async function fileTopics(context: ActionContext, fileId: string): Promise<{ topic_id: string; topic_name: string }[]> {
  const association = encodeURIComponent(`file:${fileId}`);
  const topics: { topic_id: string; topic_name: string }[] = [];
  let pageToken: string | null = null;
  do {
    const query: string = pageToken ? `?page_token=${encodeURIComponent(pageToken)}` : "";
    const page = await context.gateway.call<{ items: { topic_id: string; topic_name: string }[]; next_token: string | null }>("GET", `/v1/topics/association/${association}${query}`, undefined, context.signal);
    topics.push(...page.items);
    pageToken = page.next_token;
  } while (pageToken);
  return topics;
}

/**
 * Deletes the `stale` topics, with their derived files: what an earlier ingestion of an earlier
 * version of the file found and this one no longer does, so re-ingesting replaces the file's topics
 * rather than adding to them. A derived file this run rewrote (a channel id the new version reuses)
 * is kept.
 */
async function removeStaleTopics(context: ActionContext, fileId: string, stale: { topic_id: string }[], uploaded: Set<string>): Promise<void> {
  for (const { topic_id: topicId } of stale) {
    const url = `/v1/topics/id/${encodeURIComponent(topicId)}/message-path/representations/mcap`;
    const representations = await context.gateway.call<{ representation: { association: { association_id: string } } }[]>("GET", url, undefined, context.signal);
    const files = new Set(representations.map((entry) => entry.representation.association.association_id).filter((id) => id !== fileId && !uploaded.has(id)));
    await context.gateway.call("DELETE", `/v1/topics/id/${encodeURIComponent(topicId)}`, undefined, context.signal);
    for (const id of files) await deleteIfDerived(context, fileId, id);
  }
}

/** Deletes `id` when it is one of the source's derived files; a file of the user's that a representation names stays. */
async function deleteIfDerived(context: ActionContext, sourceId: string, id: string): Promise<void> {
  const file = await context.gateway.call<{ relative_path: string }>("GET", `/v1/files/record/${encodeURIComponent(id)}`, undefined, context.signal);
  if (file.relative_path.startsWith(`${derivedFilesDir(sourceId)}/`)) await context.gateway.call("DELETE", `/v1/files/${encodeURIComponent(id)}`, undefined, context.signal);
}

/**
 * Removes what a failed publish created, so a failed ingestion adds no topics and no derived files;
 * the topics and derived files of an earlier ingestion stay. Best effort.
 */
async function undo(context: ActionContext, input: InputFile, written: Written, earlierTopics: Set<string>): Promise<void> {
  const deletions = [
    ...written.topics.filter((id) => !earlierTopics.has(id)).map((id) => `/v1/topics/id/${encodeURIComponent(id)}`),
    ...[...written.createdDerived].map((id) => `/v1/files/${encodeURIComponent(id)}`),
  ];
  for (const url of deletions) {
    await context.gateway.call("DELETE", url, undefined, context.signal).catch((error: unknown) => {
      context.log(`${input.relativePath}: could not remove ${url} after the failure: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}

/**
 * The body with its ns bigints as decimal strings, which proto3 JSON reads exactly into int64
 * fields; JSON.stringify refuses bigints, and past 2**53 a number would round them.
 */
function jsonWithBigInts(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, field: unknown) => (typeof field === "bigint" ? field.toString() : field)));
}
