import { compileWhere, createFieldCatalog, type QueryNode, type SqlFragment } from "@hangar/shared";

/** The fields a session query may filter on (create_session_if_not_exists), over the `sessions` row aliased `s`. */
export const sessionCatalog = createFieldCatalog({
  prefixes: ["session"],
  columns: {
    session_id: { sql: `"s"."session_id"`, type: "text", notNull: true },
    id: { sql: `"s"."session_id"`, type: "text", notNull: true },
    org_id: { sql: `"s"."org_id"`, type: "text", notNull: true },
    name: { sql: `"s"."name"`, type: "text" },
    description: { sql: `"s"."description"`, type: "text" },
    status: { sql: `"s"."status"`, type: "text", notNull: true },
    tags: { sql: `"s"."tags"`, type: "text[]", notNull: true },
    created: { sql: `"s"."created"`, type: "timestamp", notNull: true },
    created_by: { sql: `"s"."created_by"`, type: "text", notNull: true },
    modified: { sql: `"s"."modified"`, type: "timestamp", notNull: true },
    modified_by: { sql: `"s"."modified_by"`, type: "text", notNull: true },
  },
  jsonColumns: { metadata: `"s"."metadata"`, custom_fields: `"s"."custom_fields"` },
});

/** Compiles a condition to a WHERE fragment over the sessions table; errors name `fieldName`. */
export function whereOfSessions(condition: QueryNode | undefined, fieldName: string): SqlFragment {
  return compileWhere(condition, sessionCatalog, fieldName);
}
