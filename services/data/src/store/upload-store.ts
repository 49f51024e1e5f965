import { LockMode } from "@mikro-orm/core";
import type { EntityManager } from "@hangar/shared";
import type { UploadItemRow, UploadTransactionRow } from "../domain/file-records";
import type { UploadRepository } from "../domain/file-repositories";
import { UploadItem, UploadTransaction } from "./file-entities";

/** The upload repository over MikroORM: upload transactions and their manifest items. */
export class UploadStore implements UploadRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * An upload transaction of the org; with `lock` (in a transaction) its row stays locked until
   * the transaction ends, which orders a completion against a delete of its owner.
   */
  transaction(orgId: string, transactionId: string, lock = false): Promise<UploadTransactionRow | null> {
    return this.em.findOne(UploadTransaction, { transactionId, orgId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  /** Transactions of an org by id (one query). */
  async transactionsByIds(orgId: string, transactionIds: readonly string[]): Promise<Map<string, UploadTransactionRow>> {
    const rows = transactionIds.length ? await this.em.find(UploadTransaction, { orgId, transactionId: { $in: [...transactionIds] } }) : [];
    return new Map(rows.map((row) => [row.transactionId, row]));
  }

  /** The items of several transactions (one query). */
  itemsOfAll(transactionIds: readonly string[]): Promise<UploadItemRow[]> {
    return transactionIds.length ? this.em.find(UploadItem, { transactionId: { $in: [...transactionIds] } }) : Promise.resolve([]);
  }

  items(transactionId: string): Promise<UploadItemRow[]> {
    return this.em.find(UploadItem, { transactionId }, { orderBy: { relativePath: "asc" } });
  }

  addTransaction(row: UploadTransactionRow): void {
    this.em.create(UploadTransaction, row);
  }

  addItem(row: UploadItemRow): void {
    this.em.create(UploadItem, row);
  }
}
