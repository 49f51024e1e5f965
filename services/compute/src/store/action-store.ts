import { keysetPageRows, keysetPageWithTotal, nullableTimestampFromRow, rawSql, readRows, sql, textArrayLiteral, timestampFromRow, type EntityManager, type SearchPlan, type SqlFragment } from "@hangar/shared";
import type { JsonObject } from "@bufbuild/protobuf";
import type { ActionScope } from "../domain/action-search";
import type { ActionRecord, ActionVersionRecord } from "../domain/records";
import type { ActionRepository, SearchPage } from "../domain/repositories";

type Row = Record<string, unknown>;

/**
 * The actions repository in SQL: rows come back as plain records and changes are written by
 * `update` (every invocation reads its action: the ORM's query building and hydration cost more
 * than the reads themselves). Reads outside a transaction are prepared statements.
 */
export class ActionStore implements ActionRepository {
  constructor(private readonly em: EntityManager) {}

  async find(orgId: string, name: string, lock = false): Promise<ActionRecord | null> {
    const [row] = await readRows(this.em, `select * from actions where org_id = ? and name = ?${lock ? " for update" : ""}`, [orgId, name]);
    return row ? actionFromRow(row) : null;
  }

  async findVersion(orgId: string, name: string, digest: string): Promise<ActionVersionRecord | null> {
    const [row] = await readRows(this.em, "select * from action_versions where org_id = ? and name = ? and digest = ?", [orgId, name, digest]);
    return row ? versionFromRow(row) : null;
  }

  /** Inserts on conflict do nothing, so a concurrent create of the same name loses without an error. */
  async insert(row: ActionRecord): Promise<boolean> {
    const inserted = await this.em.execute<Row[]>(
      `insert into actions (org_id, name, accessibility, definition, digest, metadata, tags, published, created, created_by, modified, modified_by)
       values (?, ?, ?, ?::jsonb, ?, ?::jsonb, ?::text[], ?, ?, ?, ?, ?)
       on conflict (org_id, name) do nothing returning name`,
      [row.orgId, row.name, ...editableValues(row).slice(0, 6), row.created, row.createdBy, row.modified, row.modifiedBy],
    );
    return inserted.length > 0;
  }

  async saveVersion(row: ActionRecord): Promise<void> {
    await this.em.execute(
      `insert into action_versions (org_id, name, digest, definition, created) values (?, ?, ?, ?, now())
       on conflict (org_id, name, digest) do nothing`,
      [row.orgId, row.name, row.digest, JSON.stringify(row.definition)],
    );
  }

  async update(row: ActionRecord): Promise<void> {
    await this.em.execute(
      `update actions set accessibility = ?, definition = ?::jsonb, digest = ?, metadata = ?::jsonb, tags = ?::text[], published = ?,
       modified = ?, modified_by = ? where org_id = ? and name = ?`,
      [...editableValues(row), row.orgId, row.name],
    );
  }

  async remove(row: ActionRecord): Promise<void> {
    await this.em.execute("delete from actions where org_id = ? and name = ?", [row.orgId, row.name]);
  }

  async search(scope: ActionScope, search: SearchPlan): Promise<SearchPage<ActionRecord>> {
    const within = scope === "action_hub" ? sql`a.accessibility = 'action_hub'` : sql`a.org_id = ${scope.orgId}`;
    const where = sql`${within} and (${search.where})`;
    const from = rawSql("actions a");
    const execute = (query: SqlFragment) => this.em.execute(query.sql, [...query.params]);
    const { rows, total } = await keysetPageWithTotal(execute, rawSql("a.*"), from, where, search);
    return { ...keysetPageRows(rows, search.limit, actionFromRow), total };
  }

  async metadataKeys(orgId: string): Promise<string[]> {
    const rows = await this.em.execute<{ key: string }[]>(
      "select distinct jsonb_object_keys(metadata) as key from actions where org_id = ? order by key",
      [orgId],
    );
    return rows.map((r) => r.key);
  }
}

/** What `update` writes, in its order: accessibility, definition, digest, metadata, tags, published, modified, modified_by. */
function editableValues(row: ActionRecord): unknown[] {
  return [
    row.accessibility,
    JSON.stringify(row.definition),
    row.digest,
    JSON.stringify(row.metadata),
    textArrayLiteral(row.tags),
    row.published,
    row.modified,
    row.modifiedBy,
  ];
}

function actionFromRow(row: Row): ActionRecord {
  return {
    orgId: row.org_id as string,
    name: row.name as string,
    accessibility: row.accessibility as string,
    definition: row.definition as JsonObject,
    digest: row.digest as string,
    metadata: row.metadata as JsonObject,
    tags: row.tags as string[],
    published: nullableTimestampFromRow(row.published),
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
  };
}

function versionFromRow(row: Row): ActionVersionRecord {
  return {
    orgId: row.org_id as string,
    name: row.name as string,
    digest: row.digest as string,
    definition: row.definition as JsonObject,
    created: timestampFromRow(row.created),
  };
}
