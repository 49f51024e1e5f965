import { getOption, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { FieldBehavior, field_behavior } from "@hangar/shared/proto/google-api";

/** The lookups the transcoder needs for one message type, built once per schema. */
export interface FieldTable {
  /** Every field by its proto name (`dataset_id`) and by its JSON name (`datasetId`). */
  readonly byName: ReadonlyMap<string, DescField>;
  /** Fields annotated `(google.api.field_behavior) = REQUIRED`, in declaration order. */
  readonly required: readonly DescField[];
}

const tables = new WeakMap<DescMessage, FieldTable>();

/** Returns the cached field table of a message type. */
export function fieldTable(schema: DescMessage): FieldTable {
  let table = tables.get(schema);
  if (table === undefined) {
    const byName = new Map<string, DescField>();
    for (const field of schema.fields) byName.set(field.jsonName, field);
    // Proto names win over a clashing JSON name of another field.
    for (const field of schema.fields) byName.set(field.name, field);
    const required = schema.fields.filter((f) => getOption(f, field_behavior).includes(FieldBehavior.REQUIRED));
    table = { byName, required };
    tables.set(schema, table);
  }
  return table;
}

/** Finds a field by its path of proto (or JSON) names through singular message fields, as in `query.limit`. */
export function findField(schema: DescMessage, path: readonly string[]): DescField | undefined {
  let desc: DescMessage | undefined = schema;
  let field: DescField | undefined;
  for (const name of path) {
    if (desc === undefined) return undefined;
    field = fieldTable(desc).byName.get(name);
    if (field === undefined) return undefined;
    desc = field.fieldKind === "message" ? field.message : undefined;
  }
  return field;
}
