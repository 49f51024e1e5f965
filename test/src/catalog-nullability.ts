import type { ColumnCatalog } from "@hangar/shared";

/** A field catalog over its own tables' rows: `tables` maps each SQL alias its columns use to a table. */
export interface CatalogOverTables {
  readonly name: string;
  readonly catalog: ColumnCatalog;
  readonly tables: Readonly<Record<string, string>>;
}

const PLAIN_COLUMN = /^"(\w+)"\."(\w+)"$/;

/**
 * Compares catalogs' NOT NULL declarations with the migrated schema `schema`, both ways: a column
 * declared NOT NULL that may be null (a keyset page would skip its null rows) and a NOT NULL column
 * left undeclared (a deep ascending page would filter up to the cursor instead of starting there).
 * Only plain `"alias"."column"` fields are compared; an expression (a JSON key read as text) is
 * nullable and must not be declared. An empty list is a catalog that matches its tables.
 */
export async function nullabilityProblems(
  execute: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>,
  schema: string,
  catalogs: readonly CatalogOverTables[],
): Promise<string[]> {
  const rows = await execute("select table_name, column_name, is_nullable from information_schema.columns where table_schema = ?", [schema]);
  const nullable = new Map(rows.map((r) => [`${String(r["table_name"])}.${String(r["column_name"])}`, r["is_nullable"] === "YES"]));
  const problems: string[] = [];
  for (const { name, catalog, tables } of catalogs) {
    for (const [field, ref] of catalog.columns) {
      const [, alias = "", column = ""] = PLAIN_COLUMN.exec(ref.sql) ?? [];
      const table = tables[alias];
      const mayBeNull = table === undefined ? true : nullable.get(`${table}.${column}`);
      if (mayBeNull === undefined) problems.push(`${name}.${field}: no column ${table}.${column}`);
      else if (mayBeNull && ref.notNull) problems.push(`${name}.${field}: declared NOT NULL, but ${ref.sql} may be null`);
      else if (!mayBeNull && !ref.notNull) problems.push(`${name}.${field}: ${table}.${column} is NOT NULL, not declared so`);
    }
  }
  return problems;
}
