import { toJson } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import type { QueryNode } from "./condition";
import { compileWhere } from "./compile-where";
import type { FieldCatalog } from "./field-catalog";
import { compileKeysetOrder } from "./keyset-order";
import { decodeCursorToken, encodeCursorToken, queryFingerprint, type PageCursor } from "./page-token";
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
  /** The request field that carried the page token, named by its errors (default `after`). */
  tokenField?: string;
}

/** A validated, compiled search and how to make the next page's token. */
export interface SearchPlan {
  condition: QueryNode | undefined;
  where: SqlFragment;
  orderBy: SqlFragment;
  /** The rows after the `after` token's row, in sort order (TRUE on the first page). */
  after: SqlFragment;
  /** Select-list columns giving each row's cursor (`cursorOfRow` reads them). */
  cursorColumns: SqlFragment;
  limit: number;
  /**
   * The token of the page after one whose last row (the last one KEPT, when fitPage cut the page)
   * is at `last`, or undefined on the last page.
   */
  nextToken(last: PageCursor | undefined, hasMore: boolean): string | undefined;
}

/**
 * Validates a QuerySpecification and compiles it for one resource: the condition (400 naming
 * `condition`), `limit` (default 1000), the sort (default `created` DESC, ties broken on the key)
 * and the `after` token, which must come from the same query. Tokens carry the last row's sort key
 * and id (keyset paging), so a deep page costs what the first does, whatever the sort.
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
  const order = compileKeysetOrder(spec.sortBy, spec.sortDirection, target.catalog, target.tieBreaker);
  const tokenField = target.tokenField ?? "after";
  const cursor = decodeCursorToken(spec.after, fingerprint, tokenField);
  return {
    condition,
    where: (target.where ?? ((c, field) => compileWhere(c, target.catalog, field)))(condition, "condition"),
    orderBy: order.orderBy,
    after: order.after(cursor, tokenField),
    cursorColumns: order.cursorColumns,
    limit,
    nextToken: (last, hasMore) => (hasMore && last ? encodeCursorToken(last, fingerprint) : undefined),
  };
}

/**
 * The plain JSON of a condition carried as a Value message. A Value without a kind (possible from
 * a gRPC client) means no condition, like JSON null.
 */
export function conditionOfValue(value: Value | undefined): unknown {
  return value?.kind.case === undefined ? undefined : toJson(ValueSchema, value);
}
