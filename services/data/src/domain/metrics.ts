import { invalidArgument, type PageCursor, type QueryNode } from "@hangar/shared";
import type { ListedPage } from "./devices";
import type { MetricGroupBy, MetricSortField } from "./metric-conditions";

/** UTC calendar buckets of an aggregation (the spec's AggregationPeriod); weeks are ISO weeks, from Monday. */
export const AGGREGATION_PERIODS = ["daily", "weekly", "monthly", "quarterly", "yearly"] as const;
/** One of AGGREGATION_PERIODS. */
export type AggregationPeriod = (typeof AGGREGATION_PERIODS)[number];

/** The day weekly buckets start on (SDK 0.62's DayOfWeek, `week_start`; default Monday, as ISO weeks). */
export const DAYS_OF_WEEK = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
/** One of DAYS_OF_WEEK. */
export type DayOfWeek = (typeof DAYS_OF_WEEK)[number];

/**
 * How an aggregation buckets values: its period, the day its weeks start on, the IANA zone whose
 * midnights bound its periods (`UTC`, the default, reads the per-day partials), and whether the
 * first and last periods take all their values (`widenToWholePeriods`, the default) or only those
 * inside the requested window.
 */
export interface Bucketing {
  period: AggregationPeriod;
  weekStart: DayOfWeek;
  timeZone: string;
  widenToWholePeriods: boolean;
}

/**
 * The zone names `time_zone` accepts: the IANA zones both ICU and PostgreSQL know. Node alone would
 * also accept offsets ("+01:00", which PostgreSQL reads with the opposite sign) and names the
 * database may not have; the canonical IANA names are in both.
 */
const TIME_ZONES: ReadonlySet<string> = new Set(["UTC", ...Intl.supportedValuesOf("timeZone")]);

/** Reads `time_zone`: an IANA zone name (a 400 naming the field otherwise). */
export function checkTimeZone(timeZone: string): string {
  if (!TIME_ZONES.has(timeZone)) throw invalidArgument("time_zone", "must be an IANA time zone name, such as 'UTC' or 'America/Los_Angeles'");
  return timeZone;
}

/** What an aggregation computes per bucket (the spec's NumericAggregation). */
export const NUMERIC_AGGREGATIONS = ["sum", "mean", "max", "min", "count"] as const;
/** One of NUMERIC_AGGREGATIONS. */
export type NumericAggregation = (typeof NUMERIC_AGGREGATIONS)[number];

/** Which of its session's bounds gives a value its time (the spec's MetricTimeFilter; default `end_time`). */
export const TIME_FILTERS = ["start_time", "end_time"] as const;
/** One of TIME_FILTERS. */
export type MetricTimeFilter = (typeof TIME_FILTERS)[number];

/** Most ids in one `include_*_ids` filter: each becomes a bound parameter of the one SQL statement. */
export const MAX_FILTER_IDS = 1000;
/** Page size of a value query when `max_results` is not given, and its maximum (the spec's). */
export const MAX_METRIC_RESULTS = 10_000;
/** Longest metric name: the SDK puts names in URL paths, so they are short and URL-safe. */
export const MAX_METRIC_NAME_LENGTH = 256;

// The characters a URL path segment carries unencoded (RFC 3986 "unreserved"): the SDK's rule.
const METRIC_NAME = /^[A-Za-z0-9._~-]+$/;

/** A metric definition of an org; names are unique per org. */
export interface MetricDefinitionRecord {
  metricId: string;
  orgId: string;
  name: string;
  description: string | null;
  /** Free-form (`%`, `ms`); null means unitless. */
  unit: string | null;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** The value of one metric for one session; its time is the session's (`minTimestampNs`, `maxTimestampNs`). */
export interface MetricValueRecord {
  metricId: string;
  orgId: string;
  name: string;
  /** The definition's unit, read with the value. */
  unit: string | null;
  sessionId: string;
  minTimestampNs: bigint | null;
  maxTimestampNs: bigint | null;
  value: number;
  deviceId: string | null;
  invocationId: string | null;
  published: Date;
  publishedBy: string;
  /** The value of the read's `group_by` field it carries, as text; null when ungrouped or it has none. */
  groupKey: string | null;
}

/** One value as publish_metrics records it (device and session resolved). */
export interface NewMetricValue {
  metricId: string;
  value: number;
}

/** Who published a batch of values, for which session, device and invocation. */
export interface PublishContext {
  orgId: string;
  sessionId: string;
  deviceId: string | null;
  invocationId: string | null;
  publishedBy: string;
  published: Date;
}

/**
 * An id filter on values: undefined keeps every value; a list keeps those whose id is in it; null
 * (devices and invocations only) keeps those without one.
 */
export type IdFilter = readonly string[] | null | undefined;

/** Which values of which metrics a query or aggregation reads. */
export interface MetricValueSelection {
  metricIds: readonly string[];
  timeFilter: MetricTimeFilter;
  /** [startNs, endNs) of the value's time; undefined: no window (values without a time too). */
  window: { startNs: bigint; endNs: bigint } | undefined;
  deviceIds: IdFilter;
  sessionIds: IdFilter;
  invocationIds: IdFilter;
  /** Narrows the values by their session, device and collections (fields: store/metric-sql.ts). */
  condition: QueryNode | undefined;
  groupBy: MetricGroupBy | undefined;
}

/** One bucket of an aggregation: [startNs, endNs), its group, how many values fell in it and the aggregate. */
export interface MetricAggregateRecord {
  startNs: bigint;
  endNs: bigint;
  groupKey: string | null;
  total: bigint;
  value: number;
}

/** How a grouped read's groups came out: null and false when the read is not grouped. */
export interface GroupSummary {
  /** The named groups holding values (the null group not counted). */
  totalGroups: number | null;
  /** More than MAX_METRIC_GROUPS named groups held values, so the rest were dropped. */
  groupsTruncated: boolean;
}

/** The order of a value query's page. */
export interface ValueOrder {
  sortBy: MetricSortField;
  descending: boolean;
}

/** A page of values, each row's cursor, whether more follow, and the groups of the whole read. */
export interface MetricValuePage {
  rows: MetricValueRecord[];
  cursors: PageCursor[];
  hasMore: boolean;
  groups: GroupSummary;
}

/** The persistence of metric definitions and values (store/metric-store.ts). */
export interface MetricRepository {
  findDefinition(orgId: string, name: string, lock?: boolean): Promise<MetricDefinitionRecord | null>;
  /** The org's definitions of these names (those it has). */
  findDefinitions(orgId: string, names: readonly string[]): Promise<MetricDefinitionRecord[]>;
  /** The definitions of these names in the org, created as `template` says for those missing (no conflict under concurrent publishes). */
  ensureDefinitions(orgId: string, names: readonly string[], template: Omit<MetricDefinitionRecord, "metricId" | "orgId" | "name">): Promise<Map<string, MetricDefinitionRecord>>;
  /** Adds a definition; false when the org already has one of that name. */
  addDefinition(record: MetricDefinitionRecord): Promise<boolean>;
  saveDefinition(record: MetricDefinitionRecord): Promise<void>;
  removeDefinition(record: MetricDefinitionRecord): Promise<void>;
  listDefinitions(orgId: string, range: { limit: number; cursor: number | undefined }): Promise<ListedPage<MetricDefinitionRecord>>;
  /** The device ids of the session's devices, or null when the org has no such session. */
  sessionDevices(orgId: string, sessionId: string): Promise<string[] | null>;
  /** Whether the org has a device with this `device_id` (or `universal_device_id`). */
  deviceExists(orgId: string, deviceId: string): Promise<boolean>;
  /** Records the values (replacing each metric's earlier value for the session) and returns them as stored. */
  publish(context: PublishContext, values: readonly NewMetricValue[]): Promise<MetricValueRecord[]>;
  /** One bucket per period (and group) holding values, oldest first: one SQL statement. */
  aggregate(selection: MetricValueSelection, bucketing: Bucketing, aggregation: NumericAggregation): Promise<{ records: MetricAggregateRecord[]; groups: GroupSummary }>;
  /** A page of the selected values in `order`, after `cursor`. */
  queryValues(selection: MetricValueSelection, order: ValueOrder, range: { limit: number; cursor: PageCursor | undefined }): Promise<MetricValuePage>;
  /** The session's values by metric name, at most `limit`. */
  sessionValues(orgId: string, sessionId: string, limit: number): Promise<MetricValueRecord[]>;
}

/** Why a metric name is refused, or undefined when it is a valid name. */
export function metricNameProblem(name: string): string | undefined {
  if (name.length === 0) return "must not be empty";
  if ([...name].length > MAX_METRIC_NAME_LENGTH) return `must be at most ${MAX_METRIC_NAME_LENGTH} characters`;
  if (!METRIC_NAME.test(name)) return "may hold only letters, digits, '.', '_', '-' and '~'";
  return undefined;
}

/** A valid metric name, or a 400 naming `field`. */
export function checkMetricName(name: string, field = "name"): string {
  const problem = metricNameProblem(name);
  if (problem) throw invalidArgument(field, problem);
  return name;
}

/** Reads one of a fixed set of names (`period`, `aggregation`, `time_filter`): a 400 naming the field and listing them otherwise. */
export function checkChoice<T extends string>(value: string, choices: readonly T[], field: string): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw invalidArgument(field, `must be one of ${choices.map((c) => `'${c}'`).join(", ")}`);
}

/** Checks an `include_*_ids` filter: at most MAX_FILTER_IDS ids; null only where `nullable`. */
export function checkIdFilter(ids: IdFilter, field: string, nullable: boolean): IdFilter {
  if (ids === null && !nullable) throw invalidArgument(field, "must be a list of ids (null is not allowed)");
  if (ids && ids.length > MAX_FILTER_IDS) throw invalidArgument(field, `must hold at most ${MAX_FILTER_IDS} ids`);
  return ids;
}

/** A time window [start, end) in ns since the epoch: both at least 0 and start before end, or a 400 naming the field. */
export function checkWindow(startNs: bigint, endNs: bigint): { startNs: bigint; endNs: bigint } {
  if (startNs < 0n) throw invalidArgument("start_time_ns", "must be at least 0");
  if (endNs <= startNs) throw invalidArgument("end_time_ns", "must be after start_time_ns");
  return { startNs, endNs };
}
