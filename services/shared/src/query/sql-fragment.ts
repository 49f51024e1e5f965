/**
 * A piece of SQL with `?` placeholders and their values in order (knex/MikroORM raw bindings).
 * Fragments are only built by `sql` and `rawSql`, so user input can only ever become a parameter.
 */
export interface SqlFragment {
  readonly sql: string;
  readonly params: readonly unknown[];
}

// Fragments made here are remembered, so a look-alike object from elsewhere becomes a parameter.
const fragments = new WeakSet<SqlFragment>();

/**
 * Tagged template that keeps interpolated fragments as SQL and turns every other value into a `?`
 * parameter, so parameters stay in the same order as their placeholders however fragments nest.
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): SqlFragment {
  let text = strings[0] ?? "";
  const params: unknown[] = [];
  values.forEach((value, i) => {
    if (isSqlFragment(value)) {
      text += value.sql;
      params.push(...value.params);
    } else {
      text += "?";
      params.push(value);
    }
    text += strings[i + 1] ?? "";
  });
  return fragment(text, params);
}

/**
 * Wraps trusted SQL text (catalog identifiers, keywords) as a fragment. The text must not contain
 * `?`: MikroORM's execute would read it as a placeholder (and `??` as an identifier binding).
 */
export function rawSql(text: string): SqlFragment {
  if (text.includes("?")) throw new Error(`raw SQL must not contain '?': ${text}`);
  return fragment(text, []);
}

/** Joins fragments with a separator such as " AND " or ", ". */
export function joinSql(parts: readonly SqlFragment[], separator: string): SqlFragment {
  return fragment(
    parts.map((p) => p.sql).join(separator),
    parts.flatMap((p) => p.params),
  );
}

function fragment(text: string, params: readonly unknown[]): SqlFragment {
  const result = { sql: text, params };
  fragments.add(result);
  return result;
}

function isSqlFragment(value: unknown): value is SqlFragment {
  return typeof value === "object" && value !== null && fragments.has(value as SqlFragment);
}
