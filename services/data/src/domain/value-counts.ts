import { invalidArgument, quoteValue, rawSql, sortableRef, sql, jsonPathSql, type ColumnRef, type FieldCatalog, type JsonRef, type SqlFragment } from "@hangar/shared";
import type { QueryTargetName } from "./query-targets";

/** The most values one ValueCounts lists, and the default (the 0.62 SDK's MAX_VALUE_COUNTS_LIMIT). */
export const MAX_VALUE_COUNTS_LIMIT = 1000;

/** The targets the 0.62 SDK documents value counts for. */
const COUNTABLE_TARGETS: ReadonlySet<QueryTargetName> = new Set(["events", "sessions", "datasets", "devices", "collections", "files"]);

/** What a query counts (`value_counts` of submit_spec_query), as it is saved with the query. */
export interface ValueCountsSpec {
  field: string;
  limit: number;
  time_field?: string;
}

/** A counted field compiled for the store: its value as jsonb per record (one per list element for a list). */
export interface CountedField {
  /** The record's key (one record may hold several values of a list). */
  key: SqlFragment;
  /** The value as jsonb; NULL for a record without one. */
  value: SqlFragment;
  /** For a list field (tags), the list whose elements are the values. */
  list?: SqlFragment;
  /** The time of the record, when a time field was named. */
  time?: SqlFragment;
}

/** One value and how many matched records hold it, with their earliest and latest time. */
export interface ValueCountRow {
  value: unknown;
  count: number;
  firstTime: unknown;
  lastTime: unknown;
}

/** What get_query_value_counts answers. */
export interface ValueCountsResult {
  matched: number;
  withoutValue: number;
  distinctValues: number;
  values: ValueCountRow[];
}

/**
 * Checks a submission's `value_counts` against its target before anything is saved: a target the
 * SDK documents, a field the target sorts on (`custom.<name>` for a custom field), a limit of
 * 1..1000, a time field of a time type. Each failure is a 400 naming the field.
 */
export function checkValueCounts(
  target: QueryTargetName,
  searched: { catalog: FieldCatalog; tieBreaker: string },
  input: { field: string; limit?: bigint | undefined; timeField?: string | undefined },
): ValueCountsSpec {
  if (!COUNTABLE_TARGETS.has(target)) throw invalidArgument("value_counts", `is not supported for target ${quoteValue(target)}`);
  const limit = input.limit === undefined ? MAX_VALUE_COUNTS_LIMIT : Number(input.limit);
  if (!(limit >= 1 && limit <= MAX_VALUE_COUNTS_LIMIT)) throw invalidArgument("value_counts.limit", `must be between 1 and ${MAX_VALUE_COUNTS_LIMIT}, got ${input.limit}`);
  const spec: ValueCountsSpec = { field: input.field, limit };
  if (input.timeField) spec.time_field = input.timeField;
  compileCountedField(searched, spec);
  return spec;
}

/** Compiles a saved spec's field and time field over the target's catalog and key (400s naming `value_counts.` fields). */
export function compileCountedField(target: { catalog: FieldCatalog; tieBreaker: string }, spec: ValueCountsSpec): CountedField {
  const ref = countedRef(target.catalog, spec.field, "value_counts.field");
  const key = rawSql(target.tieBreaker);
  const counted: CountedField =
    ref.kind === "json"
      ? { key, value: sql`nullif(${jsonPathSql(ref, "#>")}, 'null'::jsonb)` }
      : ref.type === "text[]"
        ? { key, value: rawSql("to_jsonb(vc.element)"), list: rawSql(ref.sql) }
        : { key, value: sql`to_jsonb(${rawSql(ref.sql)})` };
  return spec.time_field === undefined ? counted : { ...counted, time: timeOf(target.catalog, spec.time_field) };
}

// `custom.<name>` is the SDK's spelling of a custom field; the catalogs call them `custom_fields.<name>`.
function countedRef(catalog: FieldCatalog, field: string, name: string): ColumnRef | JsonRef {
  return sortableRef(catalog, field.startsWith("custom.") ? `custom_fields.${field.slice("custom.".length)}` : field, name);
}

function timeOf(catalog: FieldCatalog, field: string): SqlFragment {
  const ref = countedRef(catalog, field, "value_counts.time_field");
  if (ref.kind !== "column" || (ref.type !== "timestamp" && ref.type !== "number")) {
    throw invalidArgument("value_counts.time_field", `${quoteValue(field)} is not a time field`);
  }
  return rawSql(ref.sql);
}
