import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate, type ListValue } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, invalidArgument, type UnitOfWork } from "@hangar/shared";
import type {
  DataService,
  FieldAddress as FieldAddressMessage,
  ReadPlanPartitionSchema,
  ReadPlanProjectionSchema,
  ReadPlanQuery,
  ReadPlanScanTaskSchema,
  RepresentationSelector as SelectorMessage,
  TopicSchemaFieldSchema,
} from "@hangar/shared/proto/data";
import type { FileTopicRepositories, FileTopicsHooks } from "../domain/file-topic-use-cases";
import { checkExtentShape, resolveReadPlan, type FieldAddress, type FieldRef, type PlanPartition, type ReadPlan, type ReadPlanQuery as PlanQuery, type ReadPlanRepositories, type RepresentationSelector, type ScanTask } from "../domain/read-plans";
import type { DataRepositories } from "../domain/repositories";
import { setTopicUnixOffset } from "../domain/topic-offsets";
import { getTopicIdentity, getTopicSchema, listSchemaFields, type SchemaFieldView, type TopicReadRepositories } from "../domain/topic-reads";
import { readerOf } from "./actors";
import { extentToProto } from "./file-topic-handlers";
import { sessionTopicToProto } from "./session-mappers";

type TopicReadHandlers = Pick<
  ServiceImpl<typeof DataService>,
  "getTopicIdentity" | "getTopicSchema" | "listSchemaFields" | "resolveReadPlan" | "resolveExtentReadPlan" | "setTopicUnixOffset" | "clearTopicUnixOffset"
>;

/** What the v2 topic operations need: the unit of work and the seam where session bounds follow file topics. */
export interface TopicReadHandlerDeps {
  uow: UnitOfWork<TopicReadRepositories & ReadPlanRepositories & FileTopicRepositories & Pick<DataRepositories, "datasets">>;
  hooks: FileTopicsHooks;
}

/** Implements the /v2/topics routes of SDK 0.62 (rules in domain/topic-reads, read-plans and topic-offsets). */
export function createTopicReadHandlers({ uow, hooks }: TopicReadHandlerDeps): TopicReadHandlers {
  return {
    async getTopicIdentity(req, ctx) {
      const topic = await getTopicIdentity(uow, readerOf(callerOf(ctx)), req.topicId);
      return { topic: sessionTopicToProto({ ...topic, name: topic.topicName }) };
    },

    async getTopicSchema(req, ctx) {
      const schema = await getTopicSchema(uow, readerOf(callerOf(ctx)), req.schemaId);
      return { schema: { ...schema, name: schema.name ?? undefined, created: timestampFromDate(schema.created), modified: timestampFromDate(schema.modified) } };
    },

    async listSchemaFields(req, ctx) {
      return { fields: (await listSchemaFields(uow, readerOf(callerOf(ctx)), req.schemaId)).map(schemaFieldToProto) };
    },

    async resolveReadPlan(req, ctx) {
      const plan = await resolveReadPlan(uow, readerOf(callerOf(ctx)), req.topicId, planQueryOf(req.query));
      return { plan: { ...planHead(plan), partitions: plan.partitions.map(partitionToProto) } };
    },

    async resolveExtentReadPlan(req, ctx) {
      const plan = await resolveReadPlan(uow, readerOf(callerOf(ctx)), req.topicId, planQueryOf(req.query));
      checkExtentShape(plan);
      return {
        plan: {
          ...planHead(plan),
          partitions: plan.partitions.map((p) => ({ topicPartId: p.topicPartId, timeOffsetNs: p.timeOffsetNs, extent: p.extent, timestamp: timestampToProto(p), scanTasks: p.scanTasks.map(scanTaskToProto) })),
        },
      };
    },

    async setTopicUnixOffset(req, ctx) {
      const extents = await setTopicUnixOffset(uow, readerOf(callerOf(ctx)), req.topicId, req.sessionId, req.unixEpochOffsetNs, hooks);
      return { extents: extents.map(extentToProto) };
    },

    async clearTopicUnixOffset(req, ctx) {
      const extents = await setTopicUnixOffset(uow, readerOf(callerOf(ctx)), req.topicId, req.sessionId, null, hooks);
      return { extents: extents.map(extentToProto) };
    },
  };
}

function planQueryOf(q: ReadPlanQuery | undefined): PlanQuery {
  return {
    startTime: q?.startTime,
    endTime: q?.endTime,
    fieldsInclude: (q?.fieldsInclude ?? []).map(addressOf),
    fieldsExclude: (q?.fieldsExclude ?? []).map(addressOf),
    preferDefault: q?.prefer?.default ? selectorOf(q.prefer.default, "prefer.default") : undefined,
    preferOverrides: (q?.prefer?.overrides ?? []).map((o, i) => ({ field: addressOf(o.field!), selector: selectorOf(o.selector!, `prefer.overrides[${i}].selector`) })),
    schemaId: q?.schemaId,
    schemaChecksum: q?.schemaChecksum,
    timelineSourceId: q?.timelineSourceId,
    timelineSourceName: q?.timelineSourceName,
    sessionId: q?.sessionId,
    fileId: q?.fileId,
    datasetId: q?.datasetId,
    deviceId: q?.deviceId,
  };
}

function addressOf(a: FieldAddressMessage): FieldAddress {
  return { path: a.path, fieldId: a.fieldId };
}

function selectorOf(s: SelectorMessage, at: string): RepresentationSelector {
  return { storageFormat: s.storageFormat, contentFormat: s.contentFormat, transformations: s.transformations ? transformationsOf(s.transformations, `${at}.transformations`) : undefined };
}

/** A selector's transformations: a list of strings (`[]` is a requirement: the untransformed original). */
function transformationsOf(list: ListValue, at: string): string[] {
  return list.values.map((v, i) => {
    if (v.kind.case !== "stringValue") throw invalidArgument(`${at}[${i}]`, "must be a string");
    return v.kind.value;
  });
}

function planHead(plan: ReadPlan) {
  return {
    planVersion: 1n,
    topicId: plan.topicId,
    ...(plan.window ? { window: plan.window } : {}),
    ...(plan.schema ? { schema: plan.schema } : {}),
    projection: projectionToProto(plan.projection),
  };
}

function projectionToProto(fields: FieldRef[] | null): MessageInitShape<typeof ReadPlanProjectionSchema> {
  return fields === null ? { form: { case: "allFields", value: { all: true } } } : { form: { case: "narrowed", value: { fields } } };
}

function partitionToProto(p: PlanPartition): MessageInitShape<typeof ReadPlanPartitionSchema> {
  return {
    topicPartId: p.topicPartId,
    timeOffsetNs: p.timeOffsetNs,
    window: p.window,
    timestamp: timestampToProto(p),
    ...(p.dataRange ? { dataRange: { values: p.dataRange.map((n) => ({ kind: { case: "numberValue" as const, value: Number(n) } })) } } : {}),
    scanTasks: p.scanTasks.map(scanTaskToProto),
    fsNodeId: p.fsNodeId,
  };
}

function timestampToProto(p: PlanPartition) {
  return { kind: p.timestamp.kind, ...(p.timestamp.field ? { field: p.timestamp.field } : {}) };
}

function scanTaskToProto(t: ScanTask): MessageInitShape<typeof ReadPlanScanTaskSchema> {
  return {
    ...(t.subtree ? { subtree: t.subtree } : {}),
    precedence: BigInt(t.precedence),
    format: t.format,
    transformations: t.transformations,
    object: { fsNodeId: t.fsNodeId, ...(t.sizeBytes !== null ? { sizeBytes: t.sizeBytes } : {}) },
    topicName: t.topicName,
  };
}

function schemaFieldToProto(f: SchemaFieldView): MessageInitShape<typeof TopicSchemaFieldSchema> {
  return { ...f, created: timestampFromDate(f.created), modified: timestampFromDate(f.modified) };
}
