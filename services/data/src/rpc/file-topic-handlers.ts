import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { administers, callerOf, readableOrg, type UnitOfWork } from "@hangar/shared";
import type { DataService, FileTopicDeclaration, RepresentationDeclaration, TimelineExtentSchema } from "@hangar/shared/proto/data";
import {
  calibrateFileTimelines,
  registerFileTopics,
  replaceFileTopicRepresentations,
  type FileTopicRepositories,
  type FileTopicsHooks,
} from "../domain/file-topic-use-cases";
import { checkDataRange, type DeclaredRepresentation, type TimelineExtentRow, type TopicDeclaration } from "../domain/file-topics";
import { optionalNanoseconds } from "../domain/time-values";
import { readerOf } from "./actors";
import { timeInputOf } from "./mappers";

type FileTopicHandlers = Pick<ServiceImpl<typeof DataService>, "registerFileTopics" | "replaceFileTopicRepresentations" | "calibrateFileTimelines">;

/** What the file topic operations need: the unit of work and the seam where session bounds follow file topics. */
export interface FileTopicHandlerDeps {
  uow: UnitOfWork<FileTopicRepositories>;
  hooks: FileTopicsHooks;
}

/** Implements register_file_topics, replace_file_topic_representations and calibrate_file_timelines (rules in domain/file-topic-use-cases). */
export function createFileTopicHandlers({ uow, hooks }: FileTopicHandlerDeps): FileTopicHandlers {
  return {
    async registerFileTopics(req, ctx) {
      const caller = callerOf(ctx);
      const orgId = readableOrg(caller);
      const actor = { ...readerOf(caller), canEditTopics: orgId !== undefined && administers(caller, orgId) };
      const topics = await registerFileTopics(uow, actor, req.fsNodeId, req.topics.map((d, i) => declarationOf(d, `topics[${i}]`)), hooks);
      return {
        responses: topics.map((t) => ({
          data: { topicId: t.topicId, name: t.topicName, orgId: t.orgId, created: timestampFromDate(t.created), createdBy: t.createdBy, modified: timestampFromDate(t.modified), modifiedBy: t.modifiedBy },
        })),
      };
    },

    async replaceFileTopicRepresentations(req, ctx) {
      const entries = req.topics.map((e, i) => ({
        topicName: e.topicName,
        dataRange: checkDataRange(e.dataRange, `topics[${i}].data_range`),
        representations: e.representations.map(representationOf),
      }));
      await replaceFileTopicRepresentations(uow, readerOf(callerOf(ctx)), req.fsNodeId, entries);
      return {};
    },

    async calibrateFileTimelines(req, ctx) {
      const entries = req.offsets.map((o) => ({
        offset: timeInputOf(o.unixEpochOffsetNs) ?? null,
        topicName: o.topicName,
        timelineSourceName: o.timelineSourceName,
        timelineSourceId: o.timelineSourceId,
      }));
      const extents = await calibrateFileTimelines(uow, readerOf(callerOf(ctx)), req.fsNodeId, entries, hooks);
      return { extents: extents.map(extentToProto) };
    },
  };
}

function declarationOf(d: FileTopicDeclaration, at: string): TopicDeclaration {
  return {
    topicName: d.topicName,
    schemaName: d.topicSchema?.name,
    fields: (d.topicSchema?.fields ?? []).map((f) => ({ path: f.path.length > 0 ? f.path : [f.name], dataType: f.dataType, canonicalDataType: f.canonicalDataType || "unknown" })),
    sources: d.timelineSources.map((s) => ({
      kind: s.kind,
      minFileTimestampNs: s.minFileTimestampNs,
      maxFileTimestampNs: s.maxFileTimestampNs,
      isDefaultForReads: s.isDefaultForReads,
      fieldPath: s.fieldPath,
    })),
    dataRange: checkDataRange(d.dataRange, `${at}.data_range`),
    representations: d.representations.map(representationOf),
    // An anchor at or before the epoch makes the declaration malformed.
    anchorNs: optionalNanoseconds(timeInputOf(d.anchorNs), `${at}.anchor_ns`, 1n),
  };
}

function representationOf(r: RepresentationDeclaration): DeclaredRepresentation {
  return { fileId: r.fileId, storageFormat: r.storageFormat, contentFormat: r.contentFormat, transformations: r.transformations, fieldPath: r.fieldPath };
}


export function extentToProto(x: TimelineExtentRow): MessageInitShape<typeof TimelineExtentSchema> {
  return {
    timelineExtentId: x.timelineExtentId,
    timelineSourceId: x.timelineSourceId,
    topicPartId: x.topicPartId,
    orgId: x.orgId,
    ...(x.minTimestamp !== null ? { minTimestamp: x.minTimestamp } : {}),
    ...(x.maxTimestamp !== null ? { maxTimestamp: x.maxTimestamp } : {}),
    unixEpochOffsetNs: x.unixEpochOffsetNs,
    created: timestampFromDate(x.created),
    createdBy: x.createdBy,
    modified: timestampFromDate(x.modified),
    modifiedBy: x.modifiedBy,
  };
}
