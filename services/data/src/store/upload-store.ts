import { nullableTimestampFromRow, textArrayLiteral, timestampFromRow, type EntityManager } from "@hangar/shared";
import type { UploadItemRow, UploadTransactionRow } from "../domain/file-records";
import type { UploadRepository } from "../domain/file-repositories";

type Row = Record<string, unknown>;

const TRANSACTION_COLUMNS = "transaction_id, org_id, association_id, association_type, origination, device_id, prefix, status, created, created_by, completed";
const ITEM_COLUMNS = "transaction_id, relative_path, size, object_key, file_id, uploaded";

/**
 * The upload repository in SQL: upload transactions and their manifest items. Every statement is
 * one round trip whatever the batch (rows as a JSON record set typed by the table itself).
 */
export class UploadStore implements UploadRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * An upload transaction of the org; with `lock` (in a transaction) its row stays locked until
   * the transaction ends, which orders a completion against a delete of its owner.
   */
  async transaction(orgId: string, transactionId: string, lock = false): Promise<UploadTransactionRow | null> {
    const rows = await this.em.execute<Row[]>(
      `select ${TRANSACTION_COLUMNS} from upload_transactions where transaction_id = ? and org_id = ?${lock ? " for update" : ""}`,
      [transactionId, orgId],
    );
    return rows[0] ? transactionFromRow(rows[0]) : null;
  }

  /** Transactions of an org by id (one query). */
  async transactionsByIds(orgId: string, transactionIds: readonly string[]): Promise<Map<string, UploadTransactionRow>> {
    if (transactionIds.length === 0) return new Map();
    const rows = await this.em.execute<Row[]>(`select ${TRANSACTION_COLUMNS} from upload_transactions where org_id = ? and transaction_id = any(?::text[])`, [
      orgId,
      textArrayLiteral(transactionIds),
    ]);
    return new Map(rows.map((row) => [row.transaction_id as string, transactionFromRow(row)]));
  }

  /** The items of several transactions (one query). */
  async itemsOfAll(transactionIds: readonly string[]): Promise<UploadItemRow[]> {
    if (transactionIds.length === 0) return [];
    const rows = await this.em.execute<Row[]>(`select ${ITEM_COLUMNS} from upload_items where transaction_id = any(?::text[])`, [textArrayLiteral(transactionIds)]);
    return rows.map(itemFromRow);
  }

  async items(transactionId: string): Promise<UploadItemRow[]> {
    const rows = await this.em.execute<Row[]>(`select ${ITEM_COLUMNS} from upload_items where transaction_id = ? order by relative_path asc`, [transactionId]);
    return rows.map(itemFromRow);
  }

  async insertTransaction(row: UploadTransactionRow): Promise<void> {
    await this.em.execute(`insert into upload_transactions (${TRANSACTION_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      row.transactionId,
      row.orgId,
      row.associationId,
      row.associationType,
      row.origination,
      row.deviceId,
      row.prefix,
      row.status,
      row.created,
      row.createdBy,
      row.completed,
    ]);
  }

  async updateStatuses(rows: readonly UploadTransactionRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.em.execute(
      `update upload_transactions t set status = r.status, completed = r.completed
       from jsonb_to_recordset(?::jsonb) as r(transaction_id text, status text, completed timestamptz) where t.transaction_id = r.transaction_id`,
      [JSON.stringify(rows.map((row) => ({ transaction_id: row.transactionId, status: row.status, completed: row.completed })))],
    );
  }

  async insertItems(rows: readonly UploadItemRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.em.execute(`insert into upload_items (${ITEM_COLUMNS}) select ${ITEM_COLUMNS} from jsonb_populate_recordset(null::upload_items, ?::jsonb)`, [
      JSON.stringify(rows.map(itemToRow)),
    ]);
  }

  async updateItems(rows: readonly UploadItemRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.em.execute(
      `update upload_items i set file_id = r.file_id, uploaded = r.uploaded from jsonb_populate_recordset(null::upload_items, ?::jsonb) r
       where i.transaction_id = r.transaction_id and i.relative_path = r.relative_path`,
      [JSON.stringify(rows.map(itemToRow))],
    );
  }
}

function transactionFromRow(row: Row): UploadTransactionRow {
  return {
    transactionId: row.transaction_id as string,
    orgId: row.org_id as string,
    associationId: row.association_id as string,
    associationType: row.association_type as string,
    origination: row.origination as string,
    deviceId: row.device_id as string | null,
    prefix: row.prefix as string,
    status: row.status as UploadTransactionRow["status"],
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    completed: nullableTimestampFromRow(row.completed),
  };
}

function itemFromRow(row: Row): UploadItemRow {
  return {
    transactionId: row.transaction_id as string,
    relativePath: row.relative_path as string,
    size: String(row.size),
    objectKey: row.object_key as string,
    fileId: row.file_id as string,
    uploaded: row.uploaded as boolean,
  };
}

/** An item as an `upload_items` row, for jsonb_populate_recordset. */
function itemToRow(row: UploadItemRow): Row {
  return { transaction_id: row.transactionId, relative_path: row.relativePath, size: row.size, object_key: row.objectKey, file_id: row.fileId, uploaded: row.uploaded };
}
