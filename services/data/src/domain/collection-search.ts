import { createFieldCatalog, planSearch, type QuerySpecInput, type SearchPlan } from "@hangar/shared";

/** The fields a collection search may filter and sort on: the `collections` table's columns. */
export const collectionCatalog = createFieldCatalog({
  prefixes: ["collection"],
  columns: {
    collection_id: { sql: `"c"."collection_id"`, type: "text" },
    id: { sql: `"c"."collection_id"`, type: "text" },
    org_id: { sql: `"c"."org_id"`, type: "text" },
    name: { sql: `"c"."name"`, type: "text" },
    description: { sql: `"c"."description"`, type: "text" },
    resource_type: { sql: `"c"."resource_type"`, type: "text" },
    tags: { sql: `"c"."tags"`, type: "text[]" },
    resource_count: { sql: `"c"."resource_count"`, type: "number" },
    version: { sql: `"c"."version"`, type: "number" },
    created: { sql: `"c"."created"`, type: "timestamp" },
    created_by: { sql: `"c"."created_by"`, type: "text" },
    updated: { sql: `"c"."updated"`, type: "timestamp" },
    updated_by: { sql: `"c"."updated_by"`, type: "text" },
  },
  jsonColumns: { custom_fields: `"c"."custom_fields"` },
});

/** Validates a QuerySpecification and compiles it into an org-scoped collection search. */
export function planCollectionSearch(spec: QuerySpecInput): SearchPlan {
  return planSearch(spec, { catalog: collectionCatalog, tieBreaker: `"c"."collection_id"` });
}
