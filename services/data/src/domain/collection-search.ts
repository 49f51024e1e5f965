import { createFieldCatalog, planSearch, type QuerySpecInput, type SearchPlan } from "@hangar/shared";

/** The fields a collection search may filter and sort on: the `collections` table's columns. */
export const collectionCatalog = createFieldCatalog({
  prefixes: ["collection"],
  columns: {
    collection_id: { sql: `"c"."collection_id"`, type: "text", notNull: true },
    id: { sql: `"c"."collection_id"`, type: "text", notNull: true },
    org_id: { sql: `"c"."org_id"`, type: "text", notNull: true },
    name: { sql: `"c"."name"`, type: "text" },
    description: { sql: `"c"."description"`, type: "text" },
    resource_type: { sql: `"c"."resource_type"`, type: "text", notNull: true },
    tags: { sql: `"c"."tags"`, type: "text[]", notNull: true },
    resource_count: { sql: `"c"."resource_count"`, type: "number", notNull: true },
    version: { sql: `"c"."version"`, type: "number", notNull: true },
    created: { sql: `"c"."created"`, type: "timestamp", notNull: true },
    created_by: { sql: `"c"."created_by"`, type: "text", notNull: true },
    updated: { sql: `"c"."updated"`, type: "timestamp", notNull: true },
    updated_by: { sql: `"c"."updated_by"`, type: "text", notNull: true },
  },
  jsonColumns: { custom_fields: `"c"."custom_fields"` },
});

/** Validates a QuerySpecification and compiles it into an org-scoped collection search. */
export function planCollectionSearch(spec: QuerySpecInput): SearchPlan {
  return planSearch(spec, { catalog: collectionCatalog, tieBreaker: `"c"."collection_id"` });
}
