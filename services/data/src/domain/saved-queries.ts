import type { JsonObject } from "@bufbuild/protobuf";
import { fromJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import {
  compileWhere,
  conditionOfValue,
  invalidArgument,
  newId,
  notFound,
  parseConditionJson,
  parseQueryText,
  planSearch,
  quoteValue,
  resolveLimit,
  type KeysetPageRows,
  type KeysetSearch,
  type QueryNode,
  type QuerySpecInput,
  type SearchPlan,
  type SqlFragment,
  type UnitOfWork,
} from "@hangar/shared";
import type { Actor, OrgActor } from "./actor";
import type { CollectionRecord } from "./collections";
import type { DatasetRecord } from "./datasets";
import type { DeviceRecord } from "./devices";
import type { FsNodeRow } from "./file-records";
import type { RobotEventWithAssociations } from "./robot-events";
import type { SessionRecord } from "./sessions";
import type { MessagePathRow, RepresentationRow, TopicView } from "./topics";
import { containmentWhere } from "./file-search";
import { TARGETS, targetOf, termCondition, type QueryTargetName } from "./query-targets";
import { checkValueCounts, compileCountedField, type CountedField, type ValueCountsResult, type ValueCountsSpec } from "./value-counts";

/** A saved query's lifecycle: `scheduled` until evaluated, then `results_available` or `failed`. */
export type SavedQueryStatus = "scheduled" | "results_available" | "failed";

/** `record_with_meta` (the default) returns records whole; `record_only` without their metadata. */
export type ContentMode = "record_only" | "record_with_meta";

/** What a saved query asks, as the QuerySpecification's JSON (`query_ctx.query`). */
export interface StoredSpec {
  condition?: unknown;
  sort_by?: string;
  sort_direction?: string;
  limit?: number;
}

/** A saved query. */
export interface SavedQueryRecord {
  queryId: string;
  orgId: string;
  target: QueryTargetName;
  contentMode: ContentMode;
  queryScheme: "query_spec_v1";
  query: StoredSpec;
  status: SavedQueryStatus;
  failureReason: string | null;
  resultCount: number;
  /** What get_query_value_counts counts, when the submission asked for it. */
  valueCounts: ValueCountsSpec | null;
  submitted: Date;
  submittedBy: string;
  modified: Date;
}

/** Persistence of saved queries. */
export interface SavedQueryRepository {
  insert(record: SavedQueryRecord): Promise<void>;
  /** The org's saved query with that id, or null. */
  find(orgId: string, queryId: string): Promise<SavedQueryRecord | null>;
  /** Records the outcome of an evaluation, unless another evaluation recorded one first; returns the record now. */
  settle(record: SavedQueryRecord, outcome: Pick<SavedQueryRecord, "status" | "failureReason" | "resultCount">): Promise<SavedQueryRecord>;
}

/** One result of a saved query, by target. */
export type QueryResultRow =
  | { target: "collections"; collection: CollectionRecord }
  | { target: "datasets"; dataset: DatasetRecord }
  | { target: "devices"; device: DeviceRecord }
  | { target: "files"; file: FsNodeRow }
  | { target: "sessions"; session: SessionRecord }
  | { target: "topics"; topic: TopicView }
  | { target: "topic_message_paths"; path: MessagePathRow; representations: RepresentationRow[] }
  | { target: "events"; event: RobotEventWithAssociations };

/** Reads the rows a compiled query selects, in one SQL statement per page or count, always inside one org. */
export interface QueryResultsRepository {
  page(target: QueryTargetName, orgId: string, search: KeysetSearch): Promise<KeysetPageRows<QueryResultRow>>;
  count(target: QueryTargetName, orgId: string, where: SqlFragment): Promise<number>;
  /** How many matches hold each value of a field, the most common `limit` values first. */
  valueCounts(target: QueryTargetName, orgId: string, where: SqlFragment, counted: CountedField, limit: number): Promise<ValueCountsResult>;
}

/** The repositories saved queries use. */
export interface SavedQueryRepositories {
  savedQueries: SavedQueryRepository;
  queryResults: QueryResultsRepository;
}

/** A submission: the target, the content mode and the question in one of three forms. */
export interface QuerySubmission {
  target: string;
  contentMode?: string | undefined;
  question: { text: string | undefined } | { spec: QuerySpecInput } | { term: string | undefined };
  /** A field whose values to count over the matches (spec queries). */
  valueCounts?: { field: string; limit?: bigint | undefined; timeField?: string | undefined } | undefined;
}

/**
 * Saves a query (400 naming the field for a bad target, content mode or question, before anything
 * is written) and evaluates it: the record comes back `results_available` with its count, or
 * `failed` with a reason when the database could not answer.
 */
export async function submitQuery(uow: UnitOfWork<SavedQueryRepositories>, actor: OrgActor, submission: QuerySubmission): Promise<SavedQueryRecord> {
  const target = targetOf(submission.target);
  const contentMode = contentModeOf(submission.contentMode);
  const query = storedSpecOf(target, submission.question);
  // Compiled here first so that errors name the request's own field (`query`, `query.condition`).
  compileWhere(query.condition as QueryNode | undefined, TARGETS[target].catalog, "spec" in submission.question ? "query.condition" : "query");
  planOf(target, query, "", undefined);
  const valueCounts = submission.valueCounts ? checkValueCounts(target, TARGETS[target], submission.valueCounts) : null;
  const now = new Date();
  const record: SavedQueryRecord = {
    queryId: newId("qr"),
    orgId: actor.orgId,
    target,
    contentMode,
    queryScheme: "query_spec_v1",
    query,
    status: "scheduled",
    failureReason: null,
    resultCount: 0,
    valueCounts,
    submitted: now,
    submittedBy: actor.subject,
    modified: now,
  };
  await uow.transaction((r) => r.savedQueries.insert(record));
  return evaluate(uow, record);
}

/** A saved query of the caller's org; one still `scheduled` (its evaluation was cut short) is evaluated now. */
export async function getQuery(uow: UnitOfWork<SavedQueryRepositories>, actor: Actor, queryId: string): Promise<SavedQueryRecord> {
  const record = actor.orgId ? await uow.repositories().savedQueries.find(actor.orgId, queryId) : null;
  if (!record) throw notFound("query", queryId);
  return evaluate(uow, record);
}

/** One page of a query's results, read now (eventually consistent): rows, the next token and the query. */
export async function queryResults(
  uow: UnitOfWork<SavedQueryRepositories>,
  actor: Actor,
  queryId: string,
  page: { token: string | undefined; limit: bigint | undefined },
): Promise<{ record: SavedQueryRecord; rows: QueryResultRow[]; nextToken(kept: number): string | undefined }> {
  const record = await getQuery(uow, actor, queryId);
  if (record.status === "failed") throw invalidArgument("query_id", `query ${quoteValue(queryId)} failed: ${record.failureReason ?? "no results"}`);
  const plan = planOf(record.target, record.query, queryId, page.token, page.limit);
  const { rows, hasMore, cursors } = await uow.repositories().queryResults.page(record.target, record.orgId, plan);
  return { record, rows, nextToken: (kept) => plan.nextToken(cursors[kept - 1], hasMore || kept < rows.length) };
}

/** The number of a query's results now (eventually consistent). */
export async function queryCount(uow: UnitOfWork<SavedQueryRepositories>, actor: Actor, queryId: string): Promise<number> {
  const record = await getQuery(uow, actor, queryId);
  return uow.repositories().queryResults.count(record.target, record.orgId, planOf(record.target, record.query, queryId, undefined).where);
}

/**
 * The values of the field a query was submitted to count, over its matches now (eventually
 * consistent, like its results); a query submitted without `value_counts` is a 400 naming it.
 */
export async function queryValueCounts(uow: UnitOfWork<SavedQueryRepositories>, actor: Actor, queryId: string): Promise<{ spec: ValueCountsSpec; counts: ValueCountsResult }> {
  const record = await getQuery(uow, actor, queryId);
  const spec = record.valueCounts;
  if (!spec) throw invalidArgument("value_counts", `query ${quoteValue(queryId)} was submitted without value_counts`);
  const where = planOf(record.target, record.query, queryId, undefined).where;
  const counts = await uow.repositories().queryResults.valueCounts(record.target, record.orgId, where, compileCountedField(TARGETS[record.target], spec), spec.limit);
  return { spec, counts };
}

async function evaluate(uow: UnitOfWork<SavedQueryRepositories>, record: SavedQueryRecord): Promise<SavedQueryRecord> {
  if (record.status !== "scheduled") return record;
  const where = planOf(record.target, record.query, record.queryId, undefined).where;
  const outcome = await uow
    .repositories()
    .queryResults.count(record.target, record.orgId, where)
    .then(
      (resultCount) => ({ status: "results_available" as const, failureReason: null, resultCount }),
      (cause: unknown) => {
        if (cause instanceof ConnectError) throw cause;
        return { status: "failed" as const, failureReason: failureOf(cause), resultCount: 0 };
      },
    );
  return uow.transaction((r) => r.savedQueries.settle(record, outcome));
}

// PostgreSQL's own message may quote the query's values, so the reason names only the kind of failure.
function failureOf(cause: unknown): string {
  const code = (cause as { code?: unknown }).code;
  return code === "57014" ? "the database cancelled the query (it ran too long)" : "the database could not evaluate the query";
}

function contentModeOf(value: string | undefined): ContentMode {
  if (value === undefined || value === "" || value === "record_with_meta") return "record_with_meta";
  if (value === "record_only") return "record_only";
  throw invalidArgument("content_mode", `must be record_only or record_with_meta, got ${quoteValue(value)}`);
}

function storedSpecOf(target: QueryTargetName, question: QuerySubmission["question"]): StoredSpec {
  if ("text" in question) return withCondition({}, question.text?.trim() ? parseQueryText(question.text, "query") : undefined);
  if ("term" in question) return withCondition({}, termCondition(target, question.term ?? ""));
  const { spec } = question;
  const condition = parseConditionJson(conditionOfValue(spec.condition), "query.condition");
  const stored: StoredSpec = withCondition({}, condition);
  if (spec.sortBy) stored.sort_by = spec.sortBy;
  if (spec.sortDirection) stored.sort_direction = spec.sortDirection;
  if (spec.limit !== undefined) stored.limit = resolveLimit(spec.limit, "query.limit");
  return stored;
}

function withCondition(spec: StoredSpec, condition: QueryNode | undefined): StoredSpec {
  return condition ? { ...spec, condition } : spec;
}

/**
 * Compiles a stored spec for its target, with page tokens bound to the query (`scope`). Errors
 * name `query.` fields; the text forms were checked when parsed, so only a spec's sort can fail here.
 * Exported for bench/search.mjs, which runs the page's SQL directly beside the gateway's answer.
 */
export function planOf(target: QueryTargetName, spec: StoredSpec, scope: string, after: string | undefined, limit?: bigint): SearchPlan {
  const { catalog, tieBreaker } = TARGETS[target];
  const input: QuerySpecInput = {
    condition: spec.condition === undefined ? undefined : fromJson(ValueSchema, spec.condition as JsonObject),
    limit: limit ?? (spec.limit === undefined ? undefined : BigInt(spec.limit)),
    after,
    sortBy: spec.sort_by,
    sortDirection: spec.sort_direction,
  };
  // Metadata equalities as jsonb containment, which the GIN indexes on metadata serve.
  const where = (condition: QueryNode | undefined, field: string) => containmentWhere(condition, field, catalog);
  return planSearch(input, { catalog, tieBreaker, scope: `query:${scope}`, tokenField: "next_page_token", where });
}
