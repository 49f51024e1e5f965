import { compileWhere, createFieldCatalog, type QueryNode, type SqlFragment } from "@hangar/shared";

/** The fields a session query may filter on (create_session_if_not_exists), over the `sessions` row aliased `s`. */
export const sessionCatalog = createFieldCatalog({
  prefixes: ["session"],
  columns: {
    session_id: { sql: `"s"."session_id"`, type: "text" },
    id: { sql: `"s"."session_id"`, type: "text" },
    org_id: { sql: `"s"."org_id"`, type: "text" },
    name: { sql: `"s"."name"`, type: "text" },
    description: { sql: `"s"."description"`, type: "text" },
    status: { sql: `"s"."status"`, type: "text" },
    tags: { sql: `"s"."tags"`, type: "text[]" },
    created: { sql: `"s"."created"`, type: "timestamp" },
    created_by: { sql: `"s"."created_by"`, type: "text" },
    modified: { sql: `"s"."modified"`, type: "timestamp" },
    modified_by: { sql: `"s"."modified_by"`, type: "text" },
  },
  jsonColumns: { metadata: `"s"."metadata"`, custom_fields: `"s"."custom_fields"` },
});

/** Compiles a condition to a WHERE fragment over the sessions table; errors name `fieldName`. */
export function whereOfSessions(condition: QueryNode | undefined, fieldName: string): SqlFragment {
  return compileWhere(condition, sessionCatalog, fieldName);
}
