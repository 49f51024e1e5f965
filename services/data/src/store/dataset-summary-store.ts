import { timestampFromRow, type EntityManager } from "@hangar/shared";
import { SUMMARY_TOPIC_NAMES, type DatasetFacts, type DatasetSummaryRepository, type DatasetSummaryRow } from "../domain/dataset-summaries";

type Row = Record<string, unknown>;

/** Dataset summaries in SQL (`dataset_summaries`, migration 0014). */
export class DatasetSummaryStore implements DatasetSummaryRepository {
  constructor(readonly em: EntityManager) {}

  async find(datasetId: string): Promise<DatasetSummaryRow | null> {
    const [row] = await this.em.execute<Row[]>("select * from dataset_summaries where dataset_id = ?", [datasetId]);
    return row ? summaryFromRow(row) : null;
  }

  async put(row: DatasetSummaryRow): Promise<void> {
    await this.em.execute(
      `insert into dataset_summaries (dataset_id, org_id, summary_id, text, status, created, created_by) values (?, ?, ?, ?, ?, ?, ?)
       on conflict (dataset_id) do update set summary_id = excluded.summary_id, text = excluded.text, status = excluded.status,
         created = excluded.created, created_by = excluded.created_by`,
      [row.datasetId, row.orgId, row.summaryId, row.text, row.status, row.created, row.createdBy],
    );
  }

  /** The dataset's available files and the topics of the dataset and of its files, in two statements. */
  async facts(datasetId: string): Promise<DatasetFacts> {
    const [files] = await this.em.execute<Row[]>(
      "select count(*)::text as n, coalesce(sum(size), 0)::text as bytes from fs_nodes where association_id = ? and fs_type = 'file' and status = 'available'",
      [datasetId],
    );
    const topics = await this.em.execute<Row[]>(
      `select topic_name, count(*) over ()::text as n from (select distinct t.topic_name from topics t
         where t.association_id = ? or t.association_id in (select node_id from fs_nodes where association_id = ?)) d
       order by topic_name limit ?`,
      [datasetId, datasetId, SUMMARY_TOPIC_NAMES],
    );
    return {
      fileCount: Number(files!.n),
      totalBytes: BigInt(files!.bytes as string),
      topicCount: Number(topics[0]?.n ?? 0),
      topicNames: topics.map((t) => t.topic_name as string),
    };
  }
}

function summaryFromRow(row: Row): DatasetSummaryRow {
  return {
    datasetId: row.dataset_id as string,
    orgId: row.org_id as string,
    summaryId: row.summary_id as string,
    text: row.text as string,
    status: row.status as DatasetSummaryRow["status"],
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
  };
}
