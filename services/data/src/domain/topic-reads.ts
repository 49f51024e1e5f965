import { createHash } from "node:crypto";
import { notFound, type UnitOfWork } from "@hangar/shared";
import type { Actor } from "./actor";
import type { TimelineSourceRow } from "./file-topics";
import type { DataRepositories } from "./repositories";
import { findTopic } from "./topic-use-cases";
import type { MessagePathRow, TopicRow } from "./topics";

/**
 * The v2 topic reads of SDK 0.62 (sdk-0.62-routes.md row 50): a topic's identity, its schema and
 * the schema's fields. A topic's schema is content-addressed: its id is `sc_` and the topic's
 * schema checksum, so every topic of an org whose data follows the same schema names the same
 * schema, and the schema record is read off the first such topic (its name, creation, fields).
 */
export interface TopicReadRepository {
  /** The timeline sources of a topic, by name. */
  sources(topicId: string): Promise<TimelineSourceRow[]>;
  /** The org's oldest topic whose schema checksum is `checksum`, or null. */
  firstWithSchema(orgId: string, checksum: string): Promise<TopicRow | null>;
}

export type TopicReadRepositories = Pick<DataRepositories, "topics" | "topicReads" | "datasets" | "files">;

const SCHEMA_ID_PREFIX = "sc_";

/** A schema as the v2 routes show it (the SDK's TopicSchemaRecord). */
export interface TopicSchemaView {
  schemaId: string;
  checksum: string;
  name: string | null;
  orgId: string;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** A field of a schema (the SDK's SchemaFieldRecord). */
export interface SchemaFieldView {
  fieldId: string;
  schemaId: string;
  orgId: string;
  name: string;
  pathInSchema: string[];
  dataType: string;
  canonicalDataType: string;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** The id of the schema with checksum `checksum`. */
export function schemaIdOf(checksum: string): string {
  return `${SCHEMA_ID_PREFIX}${checksum}`;
}

/**
 * A field's id: derived from its schema's checksum and its path, so the fields of a schema keep
 * their ids whichever topic carries them, and a read plan's field refs match the schema's fields.
 */
export function fieldIdOf(checksum: string, path: readonly string[]): string {
  return `sf_${createHash("sha256").update(`${checksum}\0${JSON.stringify(path)}`).digest("hex").slice(0, 24)}`;
}

/** The topic's identity (get_topic_identity): a 404 unless it is a topic of the caller's org. */
export async function getTopicIdentity(uow: UnitOfWork<TopicReadRepositories>, actor: Actor, topicId: string): Promise<TopicRow> {
  return findTopic(uow.repositories(), actor, { topicId });
}

/** The schema `schemaId` of the caller's org (get_topic_schema): a 404 when no topic of the org follows it. */
export async function getTopicSchema(uow: UnitOfWork<TopicReadRepositories>, actor: Actor, schemaId: string): Promise<TopicSchemaView> {
  return schemaView(await schemaCarrier(uow.repositories(), actor, schemaId));
}

/** Every field of the schema `schemaId` (list_schema_fields), in schema order. */
export async function listSchemaFields(uow: UnitOfWork<TopicReadRepositories>, actor: Actor, schemaId: string): Promise<SchemaFieldView[]> {
  const r = uow.repositories();
  const carrier = await schemaCarrier(r, actor, schemaId);
  return schemaFields(carrier, await r.topics.messagePaths([carrier.topicId]));
}

/** The schema's fields as a topic of it carries them (its message paths). */
export function schemaFields(topic: TopicRow, paths: readonly MessagePathRow[]): SchemaFieldView[] {
  const checksum = topic.schemaChecksum ?? "";
  return paths.map((p) => ({
    fieldId: fieldIdOf(checksum, p.pathInSchema),
    schemaId: schemaIdOf(checksum),
    orgId: p.orgId,
    name: p.pathInSchema[p.pathInSchema.length - 1] ?? p.messagePath,
    pathInSchema: p.pathInSchema,
    dataType: p.dataType,
    canonicalDataType: p.canonicalDataType,
    created: p.created,
    createdBy: p.createdBy,
    modified: p.modified,
    modifiedBy: p.modifiedBy,
  }));
}

async function schemaCarrier(r: TopicReadRepositories, actor: Actor, schemaId: string): Promise<TopicRow> {
  const checksum = schemaId.startsWith(SCHEMA_ID_PREFIX) ? schemaId.slice(SCHEMA_ID_PREFIX.length) : "";
  const topic = actor.orgId && checksum ? await r.topicReads.firstWithSchema(actor.orgId, checksum) : null;
  if (!topic) throw notFound("schema", schemaId);
  return topic;
}

function schemaView(topic: TopicRow): TopicSchemaView {
  return {
    schemaId: schemaIdOf(topic.schemaChecksum!),
    checksum: topic.schemaChecksum!,
    name: topic.schemaName,
    orgId: topic.orgId,
    created: topic.created,
    createdBy: topic.createdBy,
    modified: topic.modified,
    modifiedBy: topic.modifiedBy,
  };
}
