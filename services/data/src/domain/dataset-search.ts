import { compileWhere, createFieldCatalog, planSearch, type QueryNode, type QuerySpecInput, type SearchPlan, type SqlFragment } from "@hangar/shared";

/** The fields a dataset search may filter and sort on. */
export const datasetCatalog = createFieldCatalog({
  prefixes: ["dataset"],
  columns: {
    dataset_id: { sql: `"d"."dataset_id"`, type: "text", notNull: true },
    id: { sql: `"d"."dataset_id"`, type: "text", notNull: true },
    org_id: { sql: `"d"."org_id"`, type: "text", notNull: true },
    name: { sql: `"d"."name"`, type: "text" },
    description: { sql: `"d"."description"`, type: "text" },
    device_id: { sql: `"d"."device_id"`, type: "text" },
    tags: { sql: `"d"."tags"`, type: "text[]", notNull: true },
    created: { sql: `"d"."created"`, type: "timestamp", notNull: true },
    created_by: { sql: `"d"."created_by"`, type: "text", notNull: true },
    modified: { sql: `"d"."modified"`, type: "timestamp", notNull: true },
    modified_by: { sql: `"d"."modified_by"`, type: "text", notNull: true },
  },
  jsonColumns: { metadata: `"d"."metadata"`, custom_fields: `"d"."custom_fields"` },
});

/** Validates a QuerySpecification and compiles it into an org-scoped dataset search. */
export function planDatasetSearch(spec: QuerySpecInput): SearchPlan {
  return planSearch(spec, { catalog: datasetCatalog, tieBreaker: `"d"."dataset_id"` });
}

/** Compiles a condition (or none) to a WHERE fragment over the dataset table; errors name `fieldName`. */
export function whereOf(condition: QueryNode | undefined, fieldName = "condition"): SqlFragment {
  return compileWhere(condition, datasetCatalog, fieldName);
}
