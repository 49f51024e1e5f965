import { createFieldCatalog, planSearch, type QuerySpecInput, type SearchPlan } from "@hangar/shared";

/** Which actions a search covers: one org's, or every org's actions on the Action Hub. */
export type ActionScope = { orgId: string } | "action_hub";

const definitionText = (key: string) => `("a"."definition"->>'${key}')`;

/** The fields an action search may filter and sort on; definition fields read from the definition JSON. */
export const actionCatalog = createFieldCatalog({
  prefixes: ["action"],
  columns: {
    name: { sql: `"a"."name"`, type: "text", notNull: true },
    org_id: { sql: `"a"."org_id"`, type: "text", notNull: true },
    accessibility: { sql: `"a"."accessibility"`, type: "text", notNull: true },
    digest: { sql: `"a"."digest"`, type: "text", notNull: true },
    tags: { sql: `"a"."tags"`, type: "text[]", notNull: true },
    created: { sql: `"a"."created"`, type: "timestamp", notNull: true },
    created_by: { sql: `"a"."created_by"`, type: "text", notNull: true },
    modified: { sql: `"a"."modified"`, type: "timestamp", notNull: true },
    modified_by: { sql: `"a"."modified_by"`, type: "text", notNull: true },
    published: { sql: `"a"."published"`, type: "timestamp" },
    description: { sql: definitionText("description"), type: "text" },
    short_description: { sql: definitionText("short_description"), type: "text" },
    uri: { sql: definitionText("uri"), type: "text" },
    timeout: { sql: `(${definitionText("timeout")})::numeric`, type: "number" },
    requires_downloaded_inputs: { sql: `(${definitionText("requires_downloaded_inputs")})::boolean`, type: "boolean" },
  },
  jsonColumns: { metadata: `"a"."metadata"` },
});

// Ties on the sort field break on the primary key; within one org the name alone is the key.
const TIE_BREAKERS = { org: `"a"."name"`, action_hub: `("a"."org_id" || '/' || "a"."name")` };

/**
 * Validates a QuerySpecification and compiles it into a search over one org's actions or the
 * Action Hub (limit default 1000, sort default `created` DESC). Unknown fields, bad comparators
 * and page tokens of another query are 400s.
 */
export function planActionSearch(spec: QuerySpecInput, scopeName: "org" | "action_hub"): SearchPlan {
  return planSearch(spec, { catalog: actionCatalog, tieBreaker: TIE_BREAKERS[scopeName], scope: scopeName });
}
