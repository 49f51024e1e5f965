import { LockMode } from "@mikro-orm/core";
import {
  keysetPageRows,
  keysetPageWithTotal,
  queryPrepared,
  rawSql,
  sql,
  textArrayLiteral,
  type EntityManager,
  type KeysetPageRows,
  type KeysetSearch,
  type SqlFragment,
} from "@hangar/shared";
import type { DatasetRecord, DatasetRelationRecord, DatasetRepository } from "../domain/datasets";
import { Dataset, DatasetRelation, datasetFromRow } from "./entities";

const DATASETS = rawSql("datasets d");

/** The datasets repository over MikroORM; hot reads skip the ORM through prepared statements, and a new dataset is an explicit insert. */
export class DatasetStore implements DatasetRepository {
  constructor(readonly em: EntityManager) {}

  /**
   * Loads a dataset to change it: the ORM tracks it and the next flush writes the changes. With
   * `lock` (in a transaction) the row stays locked for update until the transaction ends.
   */
  find(orgId: string, datasetId: string, lock = false): Promise<DatasetRecord | null> {
    return this.em.findOne(Dataset, { datasetId, orgId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  /** Reads a dataset without tracking it: the hot path of get_dataset. */
  async read(orgId: string, datasetId: string): Promise<DatasetRecord | null> {
    const rows = await queryPrepared(this, "select * from datasets where dataset_id = $1 and org_id = $2", [datasetId, orgId]);
    return rows[0] ? datasetFromRow(rows[0]) : null;
  }

  /** Which of `datasetIds` are datasets of the org (one query). */
  async existingIds(orgId: string, datasetIds: readonly string[]): Promise<Set<string>> {
    const rows = await this.em.execute<{ dataset_id: string }[]>("select dataset_id from datasets where org_id = ? and dataset_id = any(?::text[])", [
      orgId,
      textArrayLiteral(datasetIds),
    ]);
    return new Set(rows.map((row) => row.dataset_id));
  }

  async insert(row: DatasetRecord): Promise<void> {
    await this.em.execute(
      `insert into datasets (dataset_id, org_id, name, description, device_id, metadata, custom_fields, tags, created, created_by, modified, modified_by, service_record_version)
       values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::text[], ?, ?, ?, ?, ?)`,
      [
        row.datasetId,
        row.orgId,
        row.name,
        row.description,
        row.deviceId,
        JSON.stringify(row.metadata),
        JSON.stringify(row.customFields),
        textArrayLiteral(row.tags),
        row.created,
        row.createdBy,
        row.modified,
        row.modifiedBy,
        row.serviceRecordVersion,
      ],
    );
  }

  remove(row: DatasetRecord): void {
    this.em.remove(row);
  }

  relations(datasetId: string): Promise<DatasetRelationRecord[]> {
    return this.em.find(DatasetRelation, { datasetId }, { orderBy: { relation: "asc", subject: "asc" } });
  }

  addRelation(row: DatasetRelationRecord): void {
    this.em.create(DatasetRelation, row);
  }

  async removeRelation(row: DatasetRelationRecord): Promise<void> {
    await this.em.nativeDelete(DatasetRelation, row);
  }

  /** Removes every permission tuple of a dataset (it is being deleted). */
  async removeRelations(datasetId: string): Promise<void> {
    await this.em.nativeDelete(DatasetRelation, { datasetId });
  }

  /** Runs a search in the org: one keyset page of rows and total_count as keysetPageWithTotal learns it (undefined above COUNT_CAP, or where PostgreSQL expects far more). */
  async search(orgId: string, search: KeysetSearch): Promise<KeysetPageRows<DatasetRecord> & { total: number | undefined }> {
    const where = sql`d.org_id = ${orgId} and (${search.where})`;
    const execute = (query: SqlFragment) => this.em.execute(query.sql, [...query.params]);
    const { rows, total } = await keysetPageWithTotal(execute, rawSql("d.*"), DATASETS, where, search);
    return { ...keysetPageRows(rows, search.limit, (row) => this.em.map(Dataset, row)), total };
  }

  /** The oldest dataset of the org matching a compiled condition. */
  async firstMatch(orgId: string, where: SqlFragment): Promise<DatasetRecord | null> {
    const query = sql`select d.* from datasets d where d.org_id = ${orgId} and (${where}) order by d.created asc, d.dataset_id asc limit 1`;
    const rows = await this.em.execute(query.sql, [...query.params]);
    return rows[0] ? this.em.merge(Dataset, this.em.map(Dataset, rows[0])) : null;
  }

  /** Serialises creations that match the same query in the org until the transaction ends. */
  async lockQuery(orgId: string, query: string): Promise<void> {
    await this.em.execute("select pg_advisory_xact_lock(hashtextextended(?, 0))", [`create-if-not-exists:${orgId}:${query}`]);
  }

  /** The distinct top-level metadata keys of the org's datasets, sorted. */
  async metadataKeys(orgId: string): Promise<string[]> {
    const rows = await this.em.execute<{ key: string }[]>(
      "select distinct jsonb_object_keys(metadata) as key from datasets where org_id = ? order by key",
      [orgId],
    );
    return rows.map((r) => r.key);
  }
}
