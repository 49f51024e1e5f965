import { splitFieldPath } from "./field-path";
import { rawSql, type SqlFragment } from "./sql-fragment";

/** The SQL types a column field may have; they decide which comparators and values apply. */
export type ColumnType = "text" | "timestamp" | "number" | "boolean" | "text[]";

/**
 * A field stored in its own column; `sql` is a trusted, quoted expression such as `"t"."name"`.
 * `notNull`: the expression is never null in the rows the catalog is used over (a NOT NULL column
 * of the searched table itself, not of an outer-joined one), so a keyset page needs no null arm.
 */
export interface ColumnRef {
  readonly kind: "column";
  readonly sql: string;
  readonly type: ColumnType;
  readonly notNull?: true;
}

/** A field inside a jsonb column: `sql` names the column, `path` the keys (numeric keys index lists). */
export interface JsonRef {
  readonly kind: "json";
  readonly sql: string;
  readonly path: readonly string[];
}

/**
 * How a searched row reaches rows of another resource (a dataset's topics, a topic's message
 * paths). `exists(test)` is the SQL "some related row passes `test`", a semi-join the database
 * plans with the rest of the query. Conditions of one AND group whose relations share a `key` test
 * the same related row (a topic named X with a message path of type Y), so they compile to one
 * `exists` call.
 */
export interface Relation {
  readonly key: string;
  exists(test: SqlFragment): SqlFragment;
}

/** A field of a related resource: `ref` is the field over that resource's rows. */
export interface RelatedRef {
  readonly kind: "related";
  readonly relation: Relation;
  readonly ref: ColumnRef | JsonRef;
}

/** Where a queryable field lives. */
export type FieldRef = ColumnRef | JsonRef | RelatedRef;

/**
 * Maps a field path from a query (`dataset.metadata.vehicle.id`, `created`) to SQL, or to undefined
 * for fields the resource does not support. Each searchable resource supplies one; identifiers in
 * the generated SQL come only from here.
 */
export interface FieldCatalog {
  resolve(field: string): FieldRef | undefined;
}

/** A catalog built by createFieldCatalog, which also lists its column fields (for schema checks). */
export interface ColumnCatalog extends FieldCatalog {
  readonly columns: ReadonlyMap<string, ColumnRef>;
}

/** One column field of createFieldCatalog: `notNull` only where the migrations declare the column NOT NULL. */
export interface ColumnDeclaration {
  readonly sql: string;
  readonly type: ColumnType;
  readonly notNull?: true;
}

/** The columns and jsonb columns of a resource, for createFieldCatalog. */
export interface FieldCatalogOptions {
  /** Own-resource qualifiers that may prefix a field (`dataset.name`), possibly chained. */
  readonly prefixes?: readonly string[];
  /** Column fields by name (a name may contain dots, e.g. `association.id`). */
  readonly columns: Readonly<Record<string, ColumnDeclaration>>;
  /** jsonb columns by name: `metadata.a.b` resolves to path ["a", "b"] in the `metadata` column. */
  readonly jsonColumns?: Readonly<Record<string, string>>;
}

/**
 * Builds a FieldCatalog from a column table. A field resolves as written first; if that fails and
 * it starts with one of `prefixes`, the prefix is stripped and it is tried again. Segments with
 * bracket selectors are not supported here (a resource that has them supplies its own catalog).
 */
export function createFieldCatalog(options: FieldCatalogOptions): ColumnCatalog {
  // Maps, not the option objects, so names like `constructor` never hit Object.prototype.
  const columns = new Map(Object.entries(options.columns).map(([name, c]) => [name, checked(c)]));
  const jsonColumns = new Map(Object.entries(options.jsonColumns ?? {}).map(([name, s]) => [name, checkedSql(s)]));
  const prefixes = new Set(options.prefixes ?? []);

  function resolve(field: string): FieldRef | undefined {
    const column = columns.get(field);
    if (column) return column;
    const [first = "", ...rest] = splitFieldPath(field);
    const json = jsonColumns.get(first);
    if (json !== undefined && rest.every((s) => !s.includes("["))) return { kind: "json", sql: json, path: rest };
    return prefixes.has(first) && rest.length > 0 ? resolve(rest.join(".")) : undefined;
  }
  return { resolve, columns };
}

/**
 * `catalog` over rows where its table is outer-joined (a file's dataset: files of a device have
 * none), so none of its columns is NOT NULL there.
 */
export function outerJoined(catalog: FieldCatalog): FieldCatalog {
  return {
    resolve(field) {
      const ref = catalog.resolve(field);
      return ref?.kind === "column" && ref.notNull ? { kind: "column", sql: ref.sql, type: ref.type } : ref;
    },
  };
}

function checked(column: ColumnDeclaration): ColumnRef {
  return { kind: "column", sql: checkedSql(column.sql), type: column.type, ...(column.notNull ? { notNull: true } : {}) };
}

// Catalog SQL is spliced into queries verbatim, so reject a '?' up front (it would read as a placeholder).
function checkedSql(text: string): string {
  return rawSql(text).sql;
}
