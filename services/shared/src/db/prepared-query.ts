import { createHash } from "node:crypto";
import type { EntityManager } from "./database";

interface PooledClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * Runs a read as a named prepared statement on a connection of the ORM's pool. Hot reads (a
 * record by id on every `get`) spend most of their time in the ORM's query building and entity
 * hydration (measured: 470 µs against 140 µs per read); this path skips both and lets PostgreSQL
 * reuse the plan. Placeholders are PostgreSQL's `$1, $2, ...`. Writes keep going through the ORM.
 * Takes the ORM or an entity manager's holder (`{ em }`), so a store bound to a forked manager can use it.
 */
export async function queryPrepared(orm: { em: Pick<EntityManager, "getConnection"> }, text: string, values: unknown[]): Promise<Record<string, unknown>[]> {
  const client = orm.em.getConnection().getKnex().client as {
    acquireConnection(): Promise<PooledClient>;
    releaseConnection(connection: PooledClient): Promise<void>;
  };
  const connection = await client.acquireConnection();
  try {
    return (await connection.query({ name: statementName(text), text, values })).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

const names = new Map<string, string>();

function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `q_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Reads a timestamptz column from a raw row. The ORM configures the driver to return timestamps as
 * PostgreSQL's text (`2026-11-21 08:07:42.102+00`). UTC text, the form the platform's sessions
 * read, is taken apart by position (a hot read has several per row, and `Date`'s text parser was
 * a visible share of `get_dataset`); any other form (another offset, a year before 1000, BC) is
 * made ISO 8601 and parsed.
 */
export function timestampFromRow(value: unknown): Date {
  if (value instanceof Date) return value;
  const text = String(value);
  return UTC_TEXT.test(text) ? new Date(utcMillis(text)) : new Date(text.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00"));
}

const UTC_TEXT = /^[1-9]\d{3}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?\+00$/;

/** Milliseconds since the epoch of `YYYY-MM-DD hh:mm:ss[.ffffff]+00` (fractions beyond milliseconds dropped, as `Date` does). */
function utcMillis(text: string): number {
  const digits = (from: number, to: number) => {
    let n = 0;
    for (let i = from; i < to; i++) n = n * 10 + text.charCodeAt(i) - 48;
    return n;
  };
  const fractionEnd = text.length - 3;
  const millis = fractionEnd > 20 ? Math.trunc(digits(20, Math.min(fractionEnd, 23)) * 10 ** (3 - Math.min(fractionEnd - 20, 3))) : 0;
  return Date.UTC(digits(0, 4), digits(5, 7) - 1, digits(8, 10), digits(11, 13), digits(14, 16), digits(17, 19), millis);
}
