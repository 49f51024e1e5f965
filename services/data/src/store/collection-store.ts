import { LockMode } from "@mikro-orm/core";
import { keysetPageRows, keysetPageWithTotal, rawSql, sql, type EntityManager, type KeysetPageRows, type KeysetSearch, type SqlFragment, textArrayLiteral } from "@hangar/shared";
import type { CollectionRecord, CollectionRepository, CollectionVersion, ResourceRef } from "../domain/collections";
import type { StoredRelation } from "../domain/relations";
import { Collection, CollectionRelation, CollectionVersionEntity } from "./collection-entities";

const COLLECTIONS = rawSql("collections c");

/** The collections repository: rows through the ORM, membership ranges through SQL. */
export class CollectionStore implements CollectionRepository {
  constructor(readonly em: EntityManager) {}

  find(orgId: string, collectionId: string, lock = false): Promise<CollectionRecord | null> {
    return this.em.findOne(Collection, { collectionId, orgId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  add(record: CollectionRecord): void {
    this.em.create(Collection, record);
  }

  /** Members, versions and tuples go with the row (foreign keys cascade). */
  async remove(record: CollectionRecord): Promise<void> {
    await this.em.nativeDelete(Collection, { collectionId: record.collectionId });
  }

  async members(collectionId: string, version?: number): Promise<ResourceRef[]> {
    const atVersion = version === undefined ? sql`removed_version is null` : sql`added_version <= ${version} and (removed_version is null or removed_version > ${version})`;
    const query = sql`select resource_type, resource_id, resource_version from collection_members
      where collection_id = ${collectionId} and ${atVersion} order by position`;
    const rows = await this.execute<{ resource_type: ResourceRef["resourceType"]; resource_id: string; resource_version: string | null }>(query);
    return rows.map((row) => ({ resourceType: row.resource_type, resourceId: row.resource_id, resourceVersion: row.resource_version }));
  }

  async addMembers(collectionId: string, refs: readonly ResourceRef[], version: number): Promise<void> {
    if (refs.length === 0) return;
    await this.em.execute(
      `insert into collection_members (collection_id, resource_type, resource_id, resource_version, added_version)
       select ?, t, i, v, ? from unnest(?::text[], ?::text[], ?::text[]) as m(t, i, v)`,
      [collectionId, version, ...[refs.map((r) => r.resourceType), refs.map((r) => r.resourceId), refs.map((r) => r.resourceVersion)].map(textArrayLiteral)],
    );
  }

  async removeMembers(collectionId: string, refs: readonly ResourceRef[], version: number): Promise<void> {
    if (refs.length === 0) return;
    await this.em.execute(
      `update collection_members set removed_version = ? where collection_id = ? and removed_version is null
       and (resource_type, resource_id) in (select * from unnest(?::text[], ?::text[]))`,
      [version, collectionId, textArrayLiteral(refs.map((r) => r.resourceType)), textArrayLiteral(refs.map((r) => r.resourceId))],
    );
  }

  addVersion(version: CollectionVersion): void {
    this.em.create(CollectionVersionEntity, version);
  }

  version(collectionId: string, version: number): Promise<CollectionVersion | null> {
    return this.em.findOne(CollectionVersionEntity, { collectionId, version });
  }

  changes(collectionId: string, range: { from?: number | undefined; to?: number | undefined; afterVersion?: number | undefined; limit: number }): Promise<CollectionVersion[]> {
    const bounds: Record<string, number> = { $gte: Math.max(1, (range.from ?? 0) + 1, (range.afterVersion ?? 0) + 1) };
    if (range.to !== undefined) bounds.$lte = range.to;
    return this.em.find(CollectionVersionEntity, { collectionId, version: bounds }, { orderBy: { version: "asc" }, limit: range.limit });
  }

  /** Runs a search in the org: one keyset page of rows and total_count as keysetPageWithTotal learns it (undefined above COUNT_CAP, or where PostgreSQL expects far more). */
  async search(orgId: string, search: KeysetSearch): Promise<KeysetPageRows<CollectionRecord> & { total: number | undefined }> {
    const where = sql`c.org_id = ${orgId} and (${search.where})`;
    const execute = (query: SqlFragment) => this.em.execute(query.sql, [...query.params]);
    const { rows, total } = await keysetPageWithTotal(execute, rawSql("c.*"), COLLECTIONS, where, search);
    return { ...keysetPageRows(rows, search.limit, (row) => this.em.map(Collection, row)), total };
  }

  relations(collectionId: string): Promise<StoredRelation[]> {
    return this.em.find(CollectionRelation, { collectionId }, { orderBy: { relation: "asc", subject: "asc" } });
  }

  addRelation(collectionId: string, relation: StoredRelation): void {
    this.em.create(CollectionRelation, { collectionId, ...relation });
  }

  async removeRelation(collectionId: string, relation: StoredRelation): Promise<void> {
    await this.em.nativeDelete(CollectionRelation, { collectionId, ...relation });
  }

  private execute<T>(query: SqlFragment): Promise<T[]> {
    return this.em.execute<T[]>(query.sql, [...query.params]);
  }
}
