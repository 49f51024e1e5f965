import { timestampFromRow, type EntityManager } from "@hangar/shared";
import type { SavedQueryRecord, SavedQueryRepository } from "../domain/saved-queries";

const COLUMNS = `query_id, org_id, target, content_mode, query_scheme, query, status, failure_reason, result_count::text as result_count, value_counts, submitted, submitted_by, modified`;

/** Saved queries in the `saved_queries` table. */
export class SavedQueryStore implements SavedQueryRepository {
  constructor(readonly em: EntityManager) {}

  async insert(r: SavedQueryRecord): Promise<void> {
    await this.em.execute(
      `insert into saved_queries (query_id, org_id, target, content_mode, query_scheme, query, status, failure_reason, result_count, value_counts, submitted, submitted_by, modified)
       values (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?::jsonb, ?, ?, ?)`,
      [
        ...[r.queryId, r.orgId, r.target, r.contentMode, r.queryScheme, JSON.stringify(r.query), r.status, r.failureReason, r.resultCount],
        ...[r.valueCounts ? JSON.stringify(r.valueCounts) : null, r.submitted, r.submittedBy, r.modified],
      ],
    );
  }

  async find(orgId: string, queryId: string): Promise<SavedQueryRecord | null> {
    const rows = await this.em.execute<Record<string, unknown>[]>(`select ${COLUMNS} from saved_queries where org_id = ? and query_id = ?`, [orgId, queryId]);
    return rows[0] ? recordOf(rows[0]) : null;
  }

  // Only a `scheduled` row is settled, so two evaluations racing agree on the first outcome written.
  async settle(record: SavedQueryRecord, outcome: Pick<SavedQueryRecord, "status" | "failureReason" | "resultCount">): Promise<SavedQueryRecord> {
    await this.em.execute(
      `update saved_queries set status = ?, failure_reason = ?, result_count = ?, modified = now() where query_id = ? and status = 'scheduled'`,
      [outcome.status, outcome.failureReason, outcome.resultCount, record.queryId],
    );
    return (await this.find(record.orgId, record.queryId)) ?? record;
  }
}

function recordOf(row: Record<string, unknown>): SavedQueryRecord {
  return {
    queryId: row["query_id"] as string,
    orgId: row["org_id"] as string,
    target: row["target"] as SavedQueryRecord["target"],
    contentMode: row["content_mode"] as SavedQueryRecord["contentMode"],
    queryScheme: "query_spec_v1",
    query: row["query"] as SavedQueryRecord["query"],
    status: row["status"] as SavedQueryRecord["status"],
    failureReason: row["failure_reason"] as string | null,
    resultCount: Number(row["result_count"]),
    valueCounts: (row["value_counts"] ?? null) as SavedQueryRecord["valueCounts"],
    submitted: timestampFromRow(row["submitted"]),
    submittedBy: row["submitted_by"] as string,
    modified: timestampFromRow(row["modified"]),
  };
}
