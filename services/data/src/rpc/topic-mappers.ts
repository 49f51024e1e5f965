import { create, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { RepresentationSchema, type MessagePathSchema, type TopicAssociationSchema, type TopicSchema } from "@hangar/shared/proto/data";
import type { MessagePathRow, RepresentationRow, TopicAssociationRef, TopicView } from "../domain/topics";

/** An association to its wire form (`association_version` only when pinned). */
export function associationToProto(ref: TopicAssociationRef): MessageInitShape<typeof TopicAssociationSchema> {
  return {
    associationId: ref.associationId,
    associationType: ref.associationType,
    ...(ref.associationVersion !== null ? { associationVersion: ref.associationVersion } : {}),
  };
}

/** A representation row to its wire record. */
export function representationToProto(row: RepresentationRow): MessageInitShape<typeof RepresentationSchema> {
  return {
    representationId: row.representationId,
    association: associationToProto(row),
    topicId: row.topicId,
    storageFormat: row.storageFormat,
    version: row.version,
    created: timestampFromDate(row.created),
    modified: timestampFromDate(row.modified),
    ...(row.format !== null ? { format: row.format } : {}),
    transformations: row.transformations,
  };
}

type RepresentationMessage = MessageShape<typeof RepresentationSchema>;

/**
 * A message path to its wire record, with the representations that hold it (the caller's
 * selection: a message that other records of the response share is kept as it is).
 */
export function messagePathToProto(row: MessagePathRow, representations: readonly MessageInitShape<typeof RepresentationSchema>[]): MessageInitShape<typeof MessagePathSchema> {
  return {
    messagePathId: row.messagePathId,
    messagePath: row.messagePath,
    sourcePath: row.sourcePath,
    pathInSchema: row.pathInSchema,
    topicId: row.topicId,
    orgId: row.orgId,
    dataType: row.dataType,
    canonicalDataType: row.canonicalDataType,
    metadata: row.metadata,
    created: timestampFromDate(row.created),
    createdBy: row.createdBy,
    modified: timestampFromDate(row.modified),
    modifiedBy: row.modifiedBy,
    representations: [...representations],
  };
}

/**
 * A topic with its message paths and representations to its wire record. Each representation is
 * one message, shared by the topic's default and every path it holds (built once, and the
 * gateway writes a shared message's JSON once).
 */
export function topicToProto({ topic, messagePaths, representations }: TopicView): MessageInitShape<typeof TopicSchema> {
  const messages = representations.map((rep) => create(RepresentationSchema, representationToProto(rep)));
  const defaultRep = messages.find((rep) => rep.representationId === topic.defaultRepresentationId);
  const holding = representationsByPath(representations, messages);
  return {
    topicId: topic.topicId,
    topicName: topic.topicName,
    orgId: topic.orgId,
    association: associationToProto(topic),
    created: timestampFromDate(topic.created),
    createdBy: topic.createdBy,
    modified: timestampFromDate(topic.modified),
    modifiedBy: topic.modifiedBy,
    ...(defaultRep ? { defaultRepresentation: defaultRep } : {}),
    ...(topic.startTime !== null ? { startTime: topic.startTime } : {}),
    ...(topic.endTime !== null ? { endTime: topic.endTime } : {}),
    ...(topic.messageCount !== null ? { messageCount: topic.messageCount } : {}),
    messagePaths: messagePaths.map((p) => messagePathToProto(p, holding.get(p.messagePathId) ?? [])),
    metadata: topic.metadata,
    ...(topic.schemaChecksum !== null ? { schemaChecksum: topic.schemaChecksum } : {}),
    ...(topic.schemaName !== null ? { schemaName: topic.schemaName } : {}),
    ...(topic.schemaId !== null ? { schemaId: topic.schemaId } : {}),
  };
}

/** The representation messages holding each message path: one pass over the links, however many paths a topic has. */
function representationsByPath(rows: readonly RepresentationRow[], messages: readonly RepresentationMessage[]): Map<string, RepresentationMessage[]> {
  const byPath = new Map<string, RepresentationMessage[]>();
  rows.forEach((rep, i) => {
    for (const pathId of rep.messagePathIds) {
      const held = byPath.get(pathId);
      if (held) held.push(messages[i]!);
      else byPath.set(pathId, [messages[i]!]);
    }
  });
  return byPath;
}
