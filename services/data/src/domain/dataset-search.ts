import { toJson } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import {
  compileOrderBy,
  compileWhere,
  createFieldCatalog,
  decodePageToken,
  encodePageToken,
  parseConditionJson,
  queryFingerprint,
  resolveLimit,
  type QueryNode,
  type SqlFragment,
} from "@hangar/shared";
import type { DatasetSearch } from "../store/dataset-store";

/** The fields a dataset search may filter and sort on. */
export const datasetCatalog = createFieldCatalog({
  prefixes: ["dataset"],
  columns: {
    dataset_id: { sql: `"d"."dataset_id"`, type: "text" },
    id: { sql: `"d"."dataset_id"`, type: "text" },
    org_id: { sql: `"d"."org_id"`, type: "text" },
    name: { sql: `"d"."name"`, type: "text" },
    description: { sql: `"d"."description"`, type: "text" },
    device_id: { sql: `"d"."device_id"`, type: "text" },
    tags: { sql: `"d"."tags"`, type: "text[]" },
    created: { sql: `"d"."created"`, type: "timestamp" },
    created_by: { sql: `"d"."created_by"`, type: "text" },
    modified: { sql: `"d"."modified"`, type: "timestamp" },
    modified_by: { sql: `"d"."modified_by"`, type: "text" },
  },
  jsonColumns: { metadata: `"d"."metadata"`, custom_fields: `"d"."custom_fields"` },
});

/** The search request as the wire carries it (a QuerySpecification). */
export interface DatasetQuerySpec {
  /** The Condition or ConditionGroup as the google.protobuf.Value the RPC carries. */
  condition?: Value | undefined;
  limit?: bigint | undefined;
  after?: string | undefined;
  sortBy?: string | undefined;
  sortDirection?: string | undefined;
}

/** A planned search: the SQL to run and how to make the next page's token. */
export interface PlannedSearch {
  search: DatasetSearch;
  nextToken(returned: number, total: number): string | undefined;
}

/** Validates a QuerySpecification and compiles it into an org-scoped dataset search. */
export function planDatasetSearch(spec: DatasetQuerySpec): PlannedSearch {
  const condition = parseConditionJson(conditionJson(spec.condition), "condition");
  const limit = resolveLimit(spec.limit, "limit");
  const fingerprint = queryFingerprint({ condition: condition ?? null, sortBy: spec.sortBy ?? null, sortDirection: spec.sortDirection ?? null });
  const offset = decodePageToken(spec.after, fingerprint, "after");
  return {
    search: {
      where: compileWhere(condition, datasetCatalog),
      orderBy: compileOrderBy(spec.sortBy, spec.sortDirection, datasetCatalog, `"d"."dataset_id"`),
      limit,
      offset,
    },
    nextToken: (returned, total) => (offset + returned < total ? encodePageToken(offset + returned, fingerprint) : undefined),
  };
}

// The engine reads plain JSON; the RPC carries the condition as a Value message. A Value without
// a kind (possible from a gRPC client) means no condition, like JSON null.
function conditionJson(value: Value | undefined): unknown {
  return value?.kind.case === undefined ? undefined : toJson(ValueSchema, value);
}

/** Compiles a condition (or none) to a WHERE fragment over the dataset table; errors name `fieldName`. */
export function whereOf(condition: QueryNode | undefined, fieldName = "condition"): SqlFragment {
  return compileWhere(condition, datasetCatalog, fieldName);
}
