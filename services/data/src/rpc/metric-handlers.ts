import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate, type Value } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  batchErrorOf,
  callerOf,
  conditionOfValue,
  decodeCursorToken,
  encodeCursorToken,
  fitPage,
  invalidArgument,
  nullableString,
  planKeysetPage,
  queryFingerprint,
  type Principal,
  type UnitOfWork,
} from "@hangar/shared";
import { MetricDefinitionSchema, MetricValueSchema, PublishMetricsRequestSchema, type DataService, type PublishMetricsRequest } from "@hangar/shared/proto/data";
import {
  aggregateMetrics,
  createMetric,
  deleteMetric,
  getMetric,
  listMetrics,
  listSessionMetrics,
  publishMetrics,
  queryMetricValues,
  updateMetric,
  type MetricRepositories,
  type PublishRequest,
  type ValueQuery,
} from "../domain/metric-use-cases";
import { MAX_QUERY_NAMES, readGroupBy, readMetricCondition, readSortBy } from "../domain/metric-conditions";
import {
  AGGREGATION_PERIODS,
  checkChoice,
  checkIdFilter,
  checkMetricName,
  checkTimeZone,
  checkWindow,
  DAYS_OF_WEEK,
  MAX_METRIC_RESULTS,
  NUMERIC_AGGREGATIONS,
  TIME_FILTERS,
  type GroupSummary,
  type IdFilter,
  type MetricDefinitionRecord,
  type MetricValueRecord,
} from "../domain/metrics";
import { readerOf, writerOf } from "./actors";
import { pageToProto } from "./device-mappers";

type MetricHandlers = Pick<
  ServiceImpl<typeof DataService>,
  "publishMetrics" | "publishMetricsByOutcome" | "aggregateMetrics" | "createMetric" | "getMetric" | "updateMetric" | "deleteMetric" | "listMetrics" | "queryMetricValues" | "listSessionMetrics"
>;

/** The fields a value query and an aggregation share, as the request messages carry them. */
interface ValueQueryFields {
  timeFilter?: string;
  includeDeviceIds?: Value;
  includeSessionIds?: Value;
  includeInvocationIds?: Value;
  condition?: Value;
  groupBy?: string;
}

/**
 * The metric operations (routes.md rows 196-204; rules in domain/metric-use-cases): definitions,
 * publishing values for a session, aggregating them per UTC period and querying them. Another
 * org's caller finds nothing: 404s and empty pages.
 */
export function createMetricHandlers({ uow }: { uow: UnitOfWork<MetricRepositories> }): MetricHandlers {
  return {
    async publishMetrics(req, ctx) {
      const outcomes = await publishMetrics(uow, writerOf(callerOf(ctx)), publishRequestOf(req, callerOf(ctx)));
      return { responses: outcomes.map((o, i) => ("value" in o ? { data: valueToProto(o.value) } : { error: batchErrorOf(invalidArgument(`metrics[${i}]`, o.error)) })) };
    },

    async publishMetricsByOutcome(req, ctx) {
      const outcomes = await publishMetrics(uow, writerOf(callerOf(ctx)), publishRequestOf(req.publish ?? create(PublishMetricsRequestSchema), callerOf(ctx)));
      return {
        succeeded: outcomes.flatMap((o) => ("value" in o ? [valueToProto(o.value)] : [])),
        failed: outcomes.flatMap((o) => ("error" in o ? [{ name: o.name, error: o.error }] : [])),
      };
    },

    async aggregateMetrics(req, ctx) {
      const period = checkChoice(req.period, AGGREGATION_PERIODS, "period");
      const weekStart = req.weekStart === undefined ? "monday" : checkChoice(req.weekStart, DAYS_OF_WEEK, "week_start");
      const timeZone = req.timeZone === undefined ? "UTC" : checkTimeZone(req.timeZone);
      const aggregation = checkChoice(req.aggregation, NUMERIC_AGGREGATIONS, "aggregation");
      const query = valueQueryOf(req, [req.name], checkWindow(req.startTimeNs, req.endTimeNs));
      const bucketing = { period, weekStart, timeZone, widenToWholePeriods: req.widenToWholePeriods ?? true };
      const { definition, records, groups } = await aggregateMetrics(uow, readerOf(callerOf(ctx)), query, bucketing, aggregation);
      return {
        aggregation,
        ...groupsToProto(groups),
        records: records.map((r) => ({
          metricId: definition.metricId,
          name: definition.name,
          period,
          startTime: r.startNs,
          endTime: r.endNs,
          total: r.total,
          value: r.value,
          aggregation,
          ...(definition.unit !== null ? { unit: definition.unit } : {}),
          ...(r.groupKey !== null ? { groupKey: r.groupKey } : {}),
        })),
      };
    },

    async createMetric(req, ctx) {
      return { metric: definitionToProto(await createMetric(uow, writerOf(callerOf(ctx)), req.name, { description: req.description ?? null, unit: req.unit ?? null })) };
    },

    async getMetric(req, ctx) {
      return { metric: definitionToProto(await getMetric(uow, readerOf(callerOf(ctx)), req.name)) };
    },

    async updateMetric(req, ctx) {
      const changes = { description: nullableString(setOrUndefined(req.description), "description"), unit: nullableString(setOrUndefined(req.unit), "unit") };
      return { metric: definitionToProto(await updateMetric(uow, readerOf(callerOf(ctx)), req.name, changes)) };
    },

    async deleteMetric(req, ctx) {
      await deleteMetric(uow, readerOf(callerOf(ctx)), req.name);
      return {};
    },

    async listMetrics(req, ctx) {
      const actor = readerOf(callerOf(ctx));
      const keyset = planKeysetPage(req.limit, req.pageToken, `metrics:${actor.orgId}`, { sizeField: "limit" });
      return pageToProto(await listMetrics(uow, actor, { limit: keyset.limit, cursor: keyset.before }), keyset, MetricDefinitionSchema, definitionToProto);
    },

    async queryMetricValues(req, ctx) {
      const actor = readerOf(callerOf(ctx));
      const query = valueQueryOf(req, queriedNames(req.name, req.names), optionalWindow(req.startTimeNs, req.endTimeNs));
      const order = { sortBy: readSortBy(req.sortBy, query.groupBy !== undefined), descending: req.descending ?? false };
      const limit = resultLimit(req.maxResults, "max_results");
      // The token is bound to the query and its order, so a token of another query (or org) is a 400.
      const fingerprint = queryFingerprint({ scope: `metric-values:${actor.orgId}:${JSON.stringify({ query, order }, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}` });
      const page = await queryMetricValues(uow, actor, query, order, { limit, cursor: decodeCursorToken(req.pageToken, fingerprint, "page_token") });
      // No total_count: counting every value of a query could cost more than the page (null is allowed).
      const items = fitPage(MetricValueSchema, page.rows.map(valueToProto));
      const last = page.cursors[items.length - 1];
      const more = page.hasMore || items.length < page.rows.length;
      return { items, ...(more && last ? { nextToken: encodeCursorToken(last, fingerprint) } : {}), ...groupsToProto(page.groups) };
    },

    async listSessionMetrics(req, ctx) {
      return { values: (await listSessionMetrics(uow, readerOf(callerOf(ctx)), req.sessionId, resultLimit(req.limit, "limit"))).map(valueToProto) };
    },
  };
}

function publishRequestOf(req: PublishMetricsRequest, caller: Principal): PublishRequest {
  return {
    sessionId: req.sessionId,
    deviceId: nullableString(setOrUndefined(req.deviceId), "device_id"),
    invocationId: caller.invocationId ?? null,
    entries: req.metrics.map((entry) => ({ name: entry.name, value: entry.value })),
  };
}

/** `name` or `names`: exactly one of them, a list of 1 to MAX_QUERY_NAMES distinct valid names (400s naming the field). */
function queriedNames(name: string, names: readonly string[]): string[] {
  if ((name === "") === (names.length === 0)) throw invalidArgument("name", "give exactly one of name and names");
  if (name !== "") return [name];
  if (names.length > MAX_QUERY_NAMES) throw invalidArgument("names", `must hold at most ${MAX_QUERY_NAMES} names`);
  names.forEach((n, i) => checkMetricName(n, `names[${i}]`));
  if (new Set(names).size !== names.length) throw invalidArgument("names", "must not repeat a name");
  return [...names];
}

function groupsToProto(groups: GroupSummary) {
  return { ...(groups.totalGroups !== null ? { totalGroups: BigInt(groups.totalGroups) } : {}), groupsTruncated: groups.groupsTruncated };
}

function valueQueryOf(req: ValueQueryFields, names: readonly string[], window: ValueQuery["window"]): ValueQuery {
  return {
    names,
    timeFilter: req.timeFilter === undefined ? "end_time" : checkChoice(req.timeFilter, TIME_FILTERS, "time_filter"),
    window,
    deviceIds: checkIdFilter(idFilterOf(req.includeDeviceIds, "include_device_ids"), "include_device_ids", true),
    sessionIds: checkIdFilter(idFilterOf(req.includeSessionIds, "include_session_ids"), "include_session_ids", false),
    invocationIds: checkIdFilter(idFilterOf(req.includeInvocationIds, "include_invocation_ids"), "include_invocation_ids", true),
    condition: readMetricCondition(conditionOfValue(req.condition)),
    groupBy: readGroupBy(req.groupBy),
  };
}

/** A value query's window: none when neither bound is given; a missing bound is the epoch or now. */
function optionalWindow(startNs: bigint | undefined, endNs: bigint | undefined): ValueQuery["window"] {
  if (startNs === undefined && endNs === undefined) return undefined;
  return checkWindow(startNs ?? 0n, endNs ?? BigInt(Date.now()) * 1_000_000n);
}

/** A page size of 1 to MAX_METRIC_RESULTS (default the maximum), or a 400 naming `field`. */
function resultLimit(value: bigint | undefined, field: string): number {
  if (value === undefined) return MAX_METRIC_RESULTS;
  if (value < 1n || value > BigInt(MAX_METRIC_RESULTS)) throw invalidArgument(field, `must be greater than 0 and at most ${MAX_METRIC_RESULTS}`);
  return Number(value);
}

/**
 * The SDK sends its `NotSet` sentinel (a field it leaves unchanged or unfiltered) as `{}`: an empty
 * object in a field that takes a string, a list or null means the field was not given.
 */
function setOrUndefined(value: Value | undefined): Value | undefined {
  return value?.kind.case === "structValue" && Object.keys(value.kind.value.fields).length === 0 ? undefined : value;
}

/** An `include_*_ids` value: absent, null, or a list of strings (a 400 naming `field` otherwise). */
function idFilterOf(given: Value | undefined, field: string): IdFilter {
  const value = setOrUndefined(given);
  if (value === undefined) return undefined;
  switch (value.kind.case) {
    case undefined:
    case "nullValue":
      return null;
    case "listValue":
      return value.kind.value.values.map((item, i) => {
        if (item.kind.case !== "stringValue") throw invalidArgument(`${field}[${i}]`, "expected a string");
        return item.kind.value;
      });
    default:
      throw invalidArgument(field, "expected a list of strings or null");
  }
}

/** A definition to its wire record. */
export function definitionToProto(record: MetricDefinitionRecord): MessageInitShape<typeof MetricDefinitionSchema> {
  return {
    metricId: record.metricId,
    orgId: record.orgId,
    name: record.name,
    ...(record.description !== null ? { description: record.description } : {}),
    ...(record.unit !== null ? { unit: record.unit } : {}),
    created: timestampFromDate(record.created),
    createdBy: record.createdBy,
    modified: timestampFromDate(record.modified),
    modifiedBy: record.modifiedBy,
  };
}

/** A value to its wire record. */
export function valueToProto(record: MetricValueRecord): MessageInitShape<typeof MetricValueSchema> {
  return {
    metricId: record.metricId,
    orgId: record.orgId,
    name: record.name,
    sessionId: record.sessionId,
    ...(record.minTimestampNs !== null ? { minTimestampNs: record.minTimestampNs } : {}),
    ...(record.maxTimestampNs !== null ? { maxTimestampNs: record.maxTimestampNs } : {}),
    value: record.value,
    ...(record.unit !== null ? { unit: record.unit } : {}),
    ...(record.deviceId !== null ? { deviceId: record.deviceId } : {}),
    ...(record.invocationId !== null ? { invocationId: record.invocationId } : {}),
    published: timestampFromDate(record.published),
    publishedBy: record.publishedBy,
    ...(record.groupKey !== null ? { groupKey: record.groupKey } : {}),
    ...(record.minTimestampNs !== null ? { sessionStartTimeNs: record.minTimestampNs } : {}),
    ...(record.maxTimestampNs !== null ? { sessionEndTimeNs: record.maxTimestampNs } : {}),
  };
}
