import { toJson } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import type { QueryNode } from "./condition";
import { compileOrderBy } from "./compile-order-by";
import { compileWhere } from "./compile-where";
import type { FieldCatalog } from "./field-catalog";
import { decodePageToken, encodePageToken, queryFingerprint } from "./page-token";
import { parseConditionJson } from "./parse-condition-json";
import { resolveLimit } from "./resolve-limit";
import type { SqlFragment } from "./sql-fragment";

/** A QuerySpecification as the RPCs carry it (the condition as a google.protobuf.Value). */
export interface QuerySpecInput {
  condition?: Value | undefined;
  limit?: bigint | undefined;
  after?: string | undefined;
  sortBy?: string | undefined;
  sortDirection?: string | undefined;
}

/** How to compile one resource's searches. */
export interface SearchTarget {
  catalog: FieldCatalog;
  /** The column that breaks sort ties, making pages stable (the primary key). */
  tieBreaker: string;
  /** Whatever else selects the rows (binds page tokens to it). */
  scope?: unknown;
  /** Compiles the condition when the resource needs more than the shared engine (default compileWhere). */
  where?: (condition: QueryNode | undefined, field: string) => SqlFragment;
}

/** A validated, compiled search and how to make the next page's token. */
export interface SearchPlan {
  condition: QueryNode | undefined;
  where: SqlFragment;
  orderBy: SqlFragment;
  limit: number;
  offset: number;
  /** The token of the page after one that returned `returned` rows, or undefined on the last page. */
  nextToken(returned: number, hasMore: boolean): string | undefined;
  /** The same, when the total number of matches is known. */
  nextTokenOf(returned: number, total: number): string | undefined;
}

/**
 * Validates a QuerySpecification and compiles it for one resource: the condition (400 naming
 * `condition`), `limit` (default 1000), the sort (default `created` DESC, ties broken on the key)
 * and the `after` token, which must come from the same query.
 */
export function planSearch(spec: QuerySpecInput, target: SearchTarget): SearchPlan {
  const condition = parseConditionJson(conditionOfValue(spec.condition), "condition");
  const limit = resolveLimit(spec.limit, "limit");
  const fingerprint = queryFingerprint({
    condition: condition ?? null,
    sortBy: spec.sortBy ?? null,
    sortDirection: spec.sortDirection ?? null,
    ...(target.scope !== undefined ? { scope: target.scope } : {}),
  });
  const offset = decodePageToken(spec.after, fingerprint, "after");
  const nextToken = (returned: number, hasMore: boolean) => (hasMore ? encodePageToken(offset + returned, fingerprint) : undefined);
  return {
    condition,
    where: (target.where ?? ((c, field) => compileWhere(c, target.catalog, field)))(condition, "condition"),
    orderBy: compileOrderBy(spec.sortBy, spec.sortDirection, target.catalog, target.tieBreaker),
    limit,
    offset,
    nextToken,
    nextTokenOf: (returned, total) => nextToken(returned, offset + returned < total),
  };
}

/**
 * The plain JSON of a condition carried as a Value message. A Value without a kind (possible from
 * a gRPC client) means no condition, like JSON null.
 */
export function conditionOfValue(value: Value | undefined): unknown {
  return value?.kind.case === undefined ? undefined : toJson(ValueSchema, value);
}
