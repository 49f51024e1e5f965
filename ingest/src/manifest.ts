import { createHash } from "node:crypto";
import { McapIngestError } from "./ingest-error";
import { schemaFields } from "./schema-fields";
import type { SchemaField } from "./schema-fields";
import type { SplitChannel } from "./splitter";

/** A `representations[]` entry of register_file_topics (endpoints.md, RepresentationDeclaration). */
export interface RepresentationDeclaration {
  file_id: string;
  storage_format: "mcap";
  transformations: string[];
}

/**
 * One channel of the ingested file. The first six fields are a register_file_topics declaration
 * (`{topic_name, topic_schema, timeline_sources, data_range, representations}`; `anchor_ns` is left
 * to the caller), so `{topics}` can be sent as that request's body; the platform ignores the
 * rest, which are the topic record's own facts (create_topic and update_topic take them) and
 * where the channel's derived MCAP is. Times are log times in ns since the recording's epoch.
 */
export interface TopicManifest {
  topic_name: string;
  topic_schema: { name: string; fields: SchemaField[] };
  timeline_sources: [{ kind: "mcap_log_time"; min_file_timestamp_ns: bigint; max_file_timestamp_ns: bigint }];
  data_range: null;
  representations: RepresentationDeclaration[];
  schema_name: string | null;
  schema_encoding: string | null;
  /** sha256 of the schema's data, hex; null for a channel without a schema. */
  schema_checksum: string | null;
  message_encoding: string;
  message_count: number;
  start_time: bigint;
  end_time: bigint;
  channel_id: number;
  /** The derived file's name in the sink, holding only this channel, its schema and its messages. */
  derived_file: string;
}

/** What ingesting one MCAP file found: one topic per channel that carried messages, by channel id. */
export interface IngestManifest {
  topics: TopicManifest[];
}

/**
 * Describes the split channels. Two channels on one topic name are refused: register_file_topics
 * takes a topic once per file, and merging channels whose schemas may differ would misdescribe one.
 */
export function buildManifest(channels: SplitChannel[]): IngestManifest {
  const topics = channels.map(describe);
  const seen = new Map<string, number>();
  for (const topic of topics) {
    const earlier = seen.get(topic.topic_name);
    if (earlier !== undefined) {
      throw new McapIngestError("Channel", undefined, `channels ${earlier} and ${topic.channel_id} both record topic ${JSON.stringify(topic.topic_name.slice(0, 200))}`);
    }
    seen.set(topic.topic_name, topic.channel_id);
  }
  return { topics };
}

function describe({ channel, schema, file, totals }: SplitChannel): TopicManifest {
  return {
    topic_name: channel.topic,
    topic_schema: { name: schema?.name ?? channel.topic, fields: schema ? fieldsOf(schema.id, schema.encoding, schema.name, schema.data) : [] },
    timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: totals.startTime, max_file_timestamp_ns: totals.endTime }],
    data_range: null,
    representations: [],
    schema_name: schema?.name ?? null,
    schema_encoding: schema?.encoding ?? null,
    schema_checksum: schema ? createHash("sha256").update(schema.data).digest("hex") : null,
    message_encoding: channel.messageEncoding,
    message_count: totals.messageCount,
    start_time: totals.startTime,
    end_time: totals.endTime,
    channel_id: channel.id,
    derived_file: file,
  };
}

function fieldsOf(id: number, encoding: string, name: string, data: Uint8Array): SchemaField[] {
  try {
    return schemaFields(encoding, name, data);
  } catch (error) {
    const detail = error instanceof Error ? error.message.slice(0, 300) : "unreadable";
    throw new McapIngestError("Schema", undefined, `schema ${id} (${encoding.slice(0, 40)}) does not parse: ${detail}`, { cause: error });
  }
}

/**
 * The manifest with each topic's derived file declared as its `mcap` representation, once the
 * caller has stored the derived files and knows their file ids (`fileIdOf(derived_file)`).
 */
export function withMcapRepresentations(manifest: IngestManifest, fileIdOf: (derivedFile: string) => string): IngestManifest {
  return {
    topics: manifest.topics.map((topic) => ({
      ...topic,
      representations: [{ file_id: fileIdOf(topic.derived_file), storage_format: "mcap", transformations: [] }],
    })),
  };
}

const BIGINT_MARK = "\u0000bigint:";

/** The manifest as JSON, its ns times printed as exact integers (not strings, not doubles). */
export function manifestToJson(manifest: IngestManifest): string {
  const json = JSON.stringify(manifest, (_key, value: unknown) => (typeof value === "bigint" ? `${BIGINT_MARK}${value}` : value), 2);
  return json.replace(/"\\u0000bigint:(\d+)"/g, "$1");
}
