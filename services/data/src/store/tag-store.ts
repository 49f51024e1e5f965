import { rawSql, sql, type EntityManager, type SqlFragment } from "@hangar/shared";
import type { ListedRange } from "../domain/devices";
import type { TaggedKind, TagPage, TagRepository } from "../domain/tags";
import { liveAssociation } from "./deleted-associations";

/** The rows whose tags each listing reads (`r` is the row), with the org placeholder. */
function taggedRows(kind: TaggedKind, orgId: string): SqlFragment {
  switch (kind) {
    case "dataset":
      return sql`select r.tags from datasets r where r.org_id = ${orgId}`;
    case "event":
      return sql`select r.tags from robot_events r where r.org_id = ${orgId}`;
    case "file":
      return sql`select r.tags from fs_nodes r where r.org_id = ${orgId} and r.fs_type = 'file' and r.status = 'available' and ${liveAssociation("r")}`;
  }
}

/** Tag listings in SQL: the distinct elements of the rows' `tags` arrays, one statement a page. */
export class TagStore implements TagRepository {
  constructor(readonly em: EntityManager) {}

  async list(orgId: string, kind: TaggedKind, search: string | undefined, range: ListedRange): Promise<TagPage> {
    const matching = search === undefined ? rawSql("") : sql`where strpos(lower(tag), lower(${search})) > 0`;
    const offset = range.before ?? 0;
    const query = sql`select tag from (select distinct unnest(x.tags) as tag from (${taggedRows(kind, orgId)}) x) t ${matching}
      order by tag limit ${range.limit + 1} offset ${offset}`;
    const rows = await this.em.execute<{ tag: string }[]>(query.sql, [...query.params]);
    return { tags: rows.slice(0, range.limit).map((r) => r.tag), hasMore: rows.length > range.limit };
  }
}
