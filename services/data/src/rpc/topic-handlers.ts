import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, fitPage, nullableString, planKeysetPage, type UnitOfWork } from "@hangar/shared";
import { RepresentationSchema, TopicSchema, type DataService, type NewMessagePath as NewMessagePathMsg, type MessagePathUpdate } from "@hangar/shared/proto/data";
import {
  addMessagePath,
  associationTimeBounds,
  associationTopics,
  countAssociationTopics,
  createRepresentation,
  createTopic,
  deleteTopic,
  getMessagePath,
  getTopic,
  listAssociationTopics,
  listTopicRepresentations,
  setDefaultRepresentation,
  updateMessagePath,
  updateTopic,
  type MessagePathEdit,
  type NewMessagePath,
  type NewRepresentation,
  type TopicAddress,
  type TopicRepositories,
} from "../domain/topic-use-cases";
import { decodeAssociation, topicAssociationOf, type TimeBounds, type TopicAssociationRef } from "../domain/topics";
import type { ListedPage } from "../domain/devices";
import type { TopicView } from "../domain/topics";
import { nanosecondsEdit } from "../domain/time-values";
import { readerOf } from "./actors";
import { timeInputOf } from "./mappers";
import { messagePathToProto, representationToProto, topicToProto } from "./topic-mappers";

type TopicHandlers = Pick<
  ServiceImpl<typeof DataService>,
  | "createTopic"
  | "listAssociationTopics"
  | "associationTopicTimeBounds"
  | "getTopic"
  | "deleteTopic"
  | "addMessagePath"
  | "updateMessagePath"
  | "createRepresentation"
  | "setDefaultRepresentation"
  | "getAssociationTopics"
  | "getTopicById"
  | "updateTopic"
  | "listTopicRepresentations"
  | "getMessagePath"
  | "listDatasetTopics"
  | "countDatasetTopics"
  | "datasetTopicTimeRange"
>;

/**
 * Page size of the topic listings when the caller names none: a topic carries its message paths and
 * representations, so a page of 1000 (the platform's usual default) is tens of times the bytes of
 * another record's; clients follow `next_token` either way.
 */
const TOPIC_PAGE_SIZE = 100;

/** How many topics get_association_topics returns before saying `results_remaining`. */
const ASSOCIATION_TOPICS_LIMIT = 1000;

/** Implements the topic operations of hangar.data.v1.DataService (rules in domain/topic-use-cases). */
export function createTopicHandlers(uow: UnitOfWork<TopicRepositories>): TopicHandlers {
  return {
    async createTopic(req, ctx) {
      const view = await createTopic(uow, readerOf(callerOf(ctx)), {
        association: topicAssociationOf(req.association ?? { associationId: "", associationType: "" }, "association"),
        topicName: req.topicName,
        startTime: req.startTime,
        endTime: req.endTime,
        messageCount: req.messageCount,
        metadata: req.metadata,
        schemaChecksum: req.schemaChecksum,
        schemaName: req.schemaName,
        messagePaths: req.messagePaths.map((p, i) => newPathOf(p, `message_paths[${i}]`)),
      });
      return { topic: topicToProto(view) };
    },

    async listAssociationTopics(req, ctx) {
      const association = decodeAssociation(req.encodedAssociation, "encoded_association");
      const page = planKeysetPage(req.pageSize, req.pageToken, `topics:${association.associationId}`, { defaultSize: TOPIC_PAGE_SIZE });
      return pageOf(await listAssociationTopics(uow, readerOf(callerOf(ctx)), association, page), page);
    },

    async associationTopicTimeBounds(req, ctx) {
      return boundsToProto(await associationTimeBounds(uow, readerOf(callerOf(ctx)), decodeAssociation(req.encodedAssociation, "encoded_association")));
    },

    async getTopic(req, ctx) {
      return { topic: topicToProto(await getTopic(uow, readerOf(callerOf(ctx)), addressOf(req))) };
    },

    async getTopicById(req, ctx) {
      return { topic: topicToProto(await getTopic(uow, readerOf(callerOf(ctx)), { topicId: req.topicId })) };
    },

    async deleteTopic(req, ctx) {
      await deleteTopic(uow, readerOf(callerOf(ctx)), addressOf(req));
      return {};
    },

    async addMessagePath(req, ctx) {
      const row = await addMessagePath(uow, readerOf(callerOf(ctx)), addressOf(req), newPathOf(req, "body"));
      return { messagePath: messagePathToProto(row, []) };
    },

    async updateMessagePath(req, ctx) {
      const row = await updateMessagePath(uow, readerOf(callerOf(ctx)), addressOf(req), pathEditOf(req, ""));
      const { representations } = await getMessagePath(uow, readerOf(callerOf(ctx)), row.messagePathId);
      return { messagePath: messagePathToProto(row, representations.map(representationToProto)) };
    },

    async createRepresentation(req, ctx) {
      const row = await createRepresentation(uow, readerOf(callerOf(ctx)), addressOf(req), req.messagePathId, representationOf(req));
      return { representation: representationToProto(row) };
    },

    async setDefaultRepresentation(req, ctx) {
      return { representation: representationToProto(await setDefaultRepresentation(uow, readerOf(callerOf(ctx)), addressOf(req), representationOf(req))) };
    },

    async getAssociationTopics(req, ctx) {
      const association = topicAssociationOf({ associationId: req.associationId, associationType: "" }, "association_id");
      const { topics, remaining } = await associationTopics(uow, readerOf(callerOf(ctx)), association, ASSOCIATION_TOPICS_LIMIT);
      return { result: { topics: topics.map(topicToProto), resultsRemaining: remaining } };
    },

    async updateTopic(req, ctx) {
      const change = req.messagePathChangeset;
      const view = await updateTopic(uow, readerOf(callerOf(ctx)), req.topicId, {
        startTime: nanosecondsEdit(timeInputOf(req.startTime), "start_time", 0n),
        endTime: nanosecondsEdit(timeInputOf(req.endTime), "end_time", 0n),
        messageCount: req.messageCount,
        schemaChecksum: nullableString(req.schemaChecksum, "schema_checksum"),
        schemaName: nullableString(req.schemaName, "schema_name"),
        metadataChangeset: req.metadataChangeset,
        messagePaths: change && {
          add: change.messagePathsToAdd.map((p, i) => newPathOf(p, `message_path_changeset.message_paths_to_add[${i}]`)),
          remove: change.messagePathsToDelete.map((p) => p.messagePath),
          update: change.messagePathsToUpdate.map((p, i) => pathEditOf(p, `message_path_changeset.message_paths_to_update[${i}].`)),
          replaceAll: change.replaceAll,
        },
      });
      return { topic: topicToProto(view) };
    },

    async listTopicRepresentations(req, ctx) {
      const mappings = await listTopicRepresentations(uow, readerOf(callerOf(ctx)), req.topicId, req.storageFormat || undefined);
      return {
        mappings: mappings.map(({ messagePaths, representation }) => {
          const shared = create(RepresentationSchema, representationToProto(representation));
          return { messagePaths: messagePaths.map((p) => messagePathToProto(p, [shared])), representation: shared };
        }),
      };
    },

    async getMessagePath(req, ctx) {
      const { path, representations } = await getMessagePath(uow, readerOf(callerOf(ctx)), req.messagePathId);
      return { messagePath: messagePathToProto(path, representations.map(representationToProto)) };
    },

    async listDatasetTopics(req, ctx) {
      const association = datasetOf(req.datasetId);
      const page = planKeysetPage(req.pageSize, req.pageToken, `topics:${association.associationId}`, { defaultSize: TOPIC_PAGE_SIZE });
      return pageOf(await listAssociationTopics(uow, readerOf(callerOf(ctx)), association, page), page);
    },

    async countDatasetTopics(req, ctx) {
      return { count: BigInt(await countAssociationTopics(uow, readerOf(callerOf(ctx)), datasetOf(req.datasetId))) };
    },

    async datasetTopicTimeRange(req, ctx) {
      return boundsToProto(await associationTimeBounds(uow, readerOf(callerOf(ctx)), datasetOf(req.datasetId)));
    },
  };
}

interface AddressFields {
  topicId: string;
  encodedAssociation: string;
  urlQuotedTopicName: string;
}

/** The topic a request addresses: its id route, or its association and name route. */
function addressOf(req: AddressFields): TopicAddress {
  if (req.topicId !== "") return { topicId: req.topicId };
  return { association: decodeAssociation(req.encodedAssociation, "encoded_association"), topicName: req.urlQuotedTopicName };
}

function datasetOf(datasetId: string): TopicAssociationRef {
  return { associationType: "dataset", associationId: datasetId, associationVersion: null };
}

function newPathOf(p: Omit<NewMessagePathMsg, "$typeName" | "$unknown">, field: string): NewMessagePath {
  return { messagePath: p.messagePath, dataType: p.dataType, canonicalDataType: p.canonicalDataType, metadata: p.metadata, pathInSchema: p.pathInSchema, field };
}

function pathEditOf(p: Omit<MessagePathUpdate, "$typeName" | "$unknown">, prefix: string): MessagePathEdit {
  return {
    messagePath: p.messagePath,
    metadataChangeset: p.metadataChangeset,
    dataType: p.dataType,
    canonicalDataType: p.canonicalDataType,
    pathInSchema: p.pathInSchema,
    field: prefix.replace(/\.$/, "") || "body",
  };
}

interface RepresentationFields {
  association?: { associationId: string; associationType: string; associationVersion?: bigint } | undefined;
  storageFormat: string;
  version: bigint;
  format?: string | undefined;
  transformations: string[];
}

function representationOf(req: RepresentationFields): NewRepresentation {
  return {
    association: topicAssociationOf(req.association ?? { associationId: "", associationType: "" }, "association"),
    storageFormat: req.storageFormat,
    version: req.version,
    format: req.format,
    transformations: req.transformations,
  };
}

function pageOf(listed: ListedPage<TopicView>, page: ReturnType<typeof planKeysetPage>): { items: MessageInitShape<typeof TopicSchema>[]; totalCount: bigint; nextToken?: string } {
  // Messages, not init shapes: fitPage measures each record, and the response then reuses the very messages.
  const items = fitPage(TopicSchema, listed.rows.map((view) => create(TopicSchema, topicToProto(view))));
  const nextToken = page.nextToken(listed.keys[items.length - 1], listed.hasMore || items.length < listed.rows.length);
  return { items, totalCount: BigInt(listed.total), ...(nextToken ? { nextToken } : {}) };
}

function boundsToProto(bounds: TimeBounds): { startTime?: bigint; endTime?: bigint } {
  return { ...(bounds.startTime !== null ? { startTime: bounds.startTime } : {}), ...(bounds.endTime !== null ? { endTime: bounds.endTime } : {}) };
}
