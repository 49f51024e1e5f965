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
  type SqlFragment,
} from "@hangar/shared";

/** Which actions a search covers: one org's, or every org's actions on the Action Hub. */
export type ActionScope = { orgId: string } | "action_hub";

/** A compiled action search, ready for the store. */
export interface ActionSearch {
  where: SqlFragment;
  orderBy: SqlFragment;
  limit: number;
  offset: number;
}

const definitionText = (key: string) => `("a"."definition"->>'${key}')`;

/** The fields an action search may filter and sort on; definition fields read from the definition JSON. */
export const actionCatalog = createFieldCatalog({
  prefixes: ["action"],
  columns: {
    name: { sql: `"a"."name"`, type: "text" },
    org_id: { sql: `"a"."org_id"`, type: "text" },
    accessibility: { sql: `"a"."accessibility"`, type: "text" },
    digest: { sql: `"a"."digest"`, type: "text" },
    tags: { sql: `"a"."tags"`, type: "text[]" },
    created: { sql: `"a"."created"`, type: "timestamp" },
    created_by: { sql: `"a"."created_by"`, type: "text" },
    modified: { sql: `"a"."modified"`, type: "timestamp" },
    modified_by: { sql: `"a"."modified_by"`, type: "text" },
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

/** The search request as the wire carries it (a QuerySpecification). */
export interface ActionQuerySpec {
  /** The Condition or ConditionGroup as the google.protobuf.Value the RPC carries. */
  condition?: Value | undefined;
  limit?: bigint | undefined;
  after?: string | undefined;
  sortBy?: string | undefined;
  sortDirection?: string | undefined;
}

/** A planned search and how to make the next page's token. */
export interface PlannedActionSearch {
  search: ActionSearch;
  nextToken(returned: number, total: number): string | undefined;
}

/**
 * Validates a QuerySpecification and compiles it into a search over one org's actions or the
 * Action Hub (limit default 1000, sort default `created` DESC). Unknown fields, bad comparators
 * and page tokens of another query are 400s.
 */
export function planActionSearch(spec: ActionQuerySpec, scopeName: "org" | "action_hub"): PlannedActionSearch {
  const condition = parseConditionJson(spec.condition?.kind.case === undefined ? undefined : toJson(ValueSchema, spec.condition), "condition");
  const fingerprint = queryFingerprint({ condition: condition ?? null, sortBy: spec.sortBy ?? null, sortDirection: spec.sortDirection ?? null, scope: scopeName });
  const offset = decodePageToken(spec.after, fingerprint, "after");
  return {
    search: {
      where: compileWhere(condition, actionCatalog),
      orderBy: compileOrderBy(spec.sortBy, spec.sortDirection, actionCatalog, TIE_BREAKERS[scopeName]),
      limit: resolveLimit(spec.limit, "limit"),
      offset,
    },
    nextToken: (returned, total) => (offset + returned < total ? encodePageToken(offset + returned, fingerprint) : undefined),
  };
}
