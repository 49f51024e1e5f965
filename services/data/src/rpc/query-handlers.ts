import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, fittingCount, protobufSize, type UnitOfWork } from "@hangar/shared";
import { QueryResultSchema, type DataService, type QuerySchema, type ValueCountsSchema } from "@hangar/shared/proto/data";
import { fromJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ValueCountsResult } from "../domain/value-counts";
import type { ModelProvider } from "../domain/prompt-to-query";
import { getQuery, queryCount, queryResults, queryValueCounts, submitQuery, type QueryResultRow, type QuerySubmission, type SavedQueryRecord, type SavedQueryRepositories } from "../domain/saved-queries";
import { readerOf, writerOf } from "./actors";
import { collectionToProto } from "./collection-mappers";
import { deviceToProto } from "./device-mappers";
import { fileToProto } from "./file-mappers";
import { datasetToProto } from "../domain/dataset-proto";
import { robotEventToProto } from "./robot-event-handlers";
import { sessionToProto } from "./session-mappers";
import { messagePathToProto, representationToProto, topicToProto } from "./topic-mappers";

type QueryHandlers = Pick<
  ServiceImpl<typeof DataService>,
  "submitTextQuery" | "submitSpecQuery" | "submitTermQuery" | "getQuery" | "getQueryResults" | "getQueryCount" | "getQueryValueCounts" | "promptToQuery"
>;

/** What the saved-query operations need: the repositories and the provider behind prompt_to_query. */
export interface QueryHandlerDeps {
  uow: UnitOfWork<SavedQueryRepositories>;
  models: ModelProvider;
}

/** Implements saved queries and search (rules in domain/saved-queries and domain/query-targets). */
export function createQueryHandlers({ uow, models }: QueryHandlerDeps): QueryHandlers {
  const submit = async (submission: QuerySubmission, caller: ReturnType<typeof callerOf>) => ({
    query: queryToProto(await submitQuery(uow, writerOf(caller), submission)),
  });
  return {
    submitTextQuery: (req, ctx) => submit({ target: req.target, contentMode: req.contentMode, question: { text: req.query } }, callerOf(ctx)),
    submitSpecQuery: (req, ctx) =>
      submit({ target: req.target, contentMode: req.contentMode, question: { spec: req.query ?? {} }, valueCounts: req.valueCounts }, callerOf(ctx)),
    submitTermQuery: (req, ctx) => submit({ target: req.target, contentMode: req.contentMode, question: { term: req.term } }, callerOf(ctx)),

    async getQuery(req, ctx) {
      return { query: queryToProto(await getQuery(uow, readerOf(callerOf(ctx)), req.queryId)) };
    },

    async getQueryResults(req, ctx) {
      const found = await queryResults(uow, readerOf(callerOf(ctx)), req.queryId, { token: req.nextPageToken, limit: req.limit });
      const records = found.rows.map((row) => resultToProto(row, found.record.contentMode === "record_only"));
      // The next page starts after the last result kept, as fitPage does for single-type pages.
      const items = records.slice(0, fittingCount(records, (r) => protobufSize(QueryResultSchema, r)));
      const nextToken = found.nextToken(items.length);
      return { items, totalCount: BigInt(found.record.resultCount), ...(nextToken ? { nextToken } : {}) };
    },

    async getQueryCount(req, ctx) {
      return { count: BigInt(await queryCount(uow, readerOf(callerOf(ctx)), req.queryId)) };
    },

    async getQueryValueCounts(req, ctx) {
      const { spec, counts } = await queryValueCounts(uow, readerOf(callerOf(ctx)), req.queryId);
      return { valueCounts: valueCountsToProto(spec.field, counts) };
    },

    async promptToQuery(req) {
      return models.promptToQuery(req.prompt);
    },
  };
}

function valueCountsToProto(field: string, counts: ValueCountsResult): MessageInitShape<typeof ValueCountsSchema> {
  const json = (value: unknown) => fromJson(ValueSchema, (value ?? null) as JsonValue);
  return {
    field,
    matched: BigInt(counts.matched),
    withoutValue: BigInt(counts.withoutValue),
    distinctValues: BigInt(counts.distinctValues),
    values: counts.values.map((v) => ({ value: json(v.value), count: BigInt(v.count), firstTime: json(v.firstTime), lastTime: json(v.lastTime) })),
  };
}

function queryToProto(r: SavedQueryRecord): MessageInitShape<typeof QuerySchema> {
  return {
    queryId: r.queryId,
    orgId: r.orgId,
    queryCtx: { queryScheme: r.queryScheme, query: r.query as JsonObject },
    resultCount: BigInt(r.resultCount),
    status: r.status,
    submitted: timestampFromDate(r.submitted),
    submittedBy: r.submittedBy,
    modified: timestampFromDate(r.modified),
    target: r.target,
    contentMode: r.contentMode,
    ...(r.failureReason !== null ? { failureReason: r.failureReason } : {}),
  };
}

// `record_only` leaves out what the record's owner added (metadata, custom fields), keeping the core fields.
function resultToProto(row: QueryResultRow, recordOnly: boolean): MessageInitShape<typeof QueryResultSchema> {
  const bare = <T extends { metadata?: unknown }>(record: T): T => (recordOnly ? { ...record, metadata: {}, ...("customFields" in record ? { customFields: {} } : {}) } : record);
  switch (row.target) {
    case "collections":
      // A collection found by a query is its summary (`summary_only`, as query_collections answers);
      // it has custom fields but no metadata.
      return { record: { case: "collection", value: { ...collectionToProto(row.collection, { mode: "summary_only" }), ...(recordOnly ? { customFields: {} } : {}) } } };
    case "datasets":
      return { record: { case: "dataset", value: bare(datasetToProto(row.dataset)) } };
    case "devices":
      return { record: { case: "device", value: bare(deviceToProto(row.device)) } };
    case "files":
      return { record: { case: "file", value: bare(fileToProto(row.file)) } };
    case "sessions":
      return { record: { case: "session", value: bare(sessionToProto(row.session)) } };
    case "topics":
      return { record: { case: "topic", value: bare(topicToProto(row.topic)) } };
    case "topic_message_paths":
      return { record: { case: "messagePath", value: bare(messagePathToProto(row.path, row.representations.map(representationToProto))) } };
    case "events":
      return { record: { case: "event", value: bare(robotEventToProto(row.event)) } };
  }
}
