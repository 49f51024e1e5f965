import type { JsonValue } from "@bufbuild/protobuf";
import { compileWhere, createFieldCatalog, parseConditionJson, planSearch, type QuerySpecInput, type SearchPlan, type SqlFragment } from "@hangar/shared";

/**
 * The fields an invocation search, activity report or grouping may filter on: dot paths into the
 * wire record (`provenance.action.name`, `parameter_values.threshold`), optionally qualified with
 * `invocation.`. SQL names the `invocations` table as `i`.
 */
export const invocationCatalog = createFieldCatalog({
  prefixes: ["invocation"],
  columns: {
    invocation_id: { sql: `"i"."invocation_id"`, type: "text", notNull: true },
    created: { sql: `"i"."created"`, type: "timestamp", notNull: true },
    last_status: { sql: `"i"."last_status"`, type: "number", notNull: true },
    org_id: { sql: `"i"."org_id"`, type: "text", notNull: true },
    idempotency_id: { sql: `"i"."idempotency_id"`, type: "text" },
    timeout: { sql: `"i"."timeout"`, type: "number", notNull: true },
    "data_source.data_source_id": { sql: `"i"."data_source_id"`, type: "text", notNull: true },
    "data_source.data_source_type": { sql: `"i"."data_source_type"`, type: "text", notNull: true },
    "provenance.action.name": { sql: `"i"."action_name"`, type: "text", notNull: true },
    "provenance.action.org_id": { sql: `"i"."action_org_id"`, type: "text", notNull: true },
    "provenance.action.digest": { sql: `"i"."action_digest"`, type: "text", notNull: true },
    "provenance.source.source_type": { sql: `"i"."source_type"`, type: "text", notNull: true },
    "provenance.source.source_id": { sql: `"i"."source_id"`, type: "text", notNull: true },
  },
  jsonColumns: { parameter_values: `"i"."parameter_values"` },
});

/**
 * Validates a QuerySpecification and plans an invocation search: sorted by `created` DESC unless
 * it says otherwise, 1000 per page by default, paged with `after` = the previous `next_token`.
 */
export function planInvocationSearch(spec: QuerySpecInput): SearchPlan {
  return planSearch(spec, { catalog: invocationCatalog, tieBreaker: `"i"."invocation_id"` });
}

/** Compiles an optional Condition or ConditionGroup over the invocation fields; errors name `condition`. */
export function invocationCondition(json: JsonValue | undefined): SqlFragment {
  return compileWhere(parseConditionJson(json, "condition"), invocationCatalog, "condition");
}
