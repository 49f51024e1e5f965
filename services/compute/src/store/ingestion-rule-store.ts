import { EntitySchema, LockMode } from "@mikro-orm/core";
import { readRows, timestampFromRow, type EntityManager } from "@hangar/shared";
import type { JsonObject } from "@bufbuild/protobuf";
import type { IngestionRuleRecord, IngestionRuleRepository, RuleRunRow } from "../domain/ingestion-rule-records";

/** The `ingestion_rules` table. */
export const IngestionRule = new EntitySchema<IngestionRuleRecord>({
  name: "IngestionRule",
  tableName: "ingestion_rules",
  properties: {
    ruleId: { type: "string", primary: true },
    orgId: { type: "string" },
    name: { type: "string" },
    description: { type: "string", nullable: true },
    includePatterns: { type: "string[]" },
    excludePatterns: { type: "string[]" },
    invocation: { type: "json", nullable: true },
    autoIngest: { type: "boolean" },
    triggerId: { type: "string", nullable: true },
    created: { type: "Date" },
    createdBy: { type: "string" },
    modified: { type: "Date" },
    modifiedBy: { type: "string" },
  },
});

/** The ingestion rules and, through their managed triggers' dispatches, their runs. */
export class IngestionRuleStore implements IngestionRuleRepository {
  constructor(private readonly em: EntityManager) {}

  find(orgId: string, ruleId: string, lock = false): Promise<IngestionRuleRecord | null> {
    return this.em.findOne(IngestionRule, { orgId, ruleId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  /** Read on every upload of the org (its rules decide what to ingest): plain records, not tracked. */
  async ofOrg(orgId: string): Promise<IngestionRuleRecord[]> {
    const rows = await readRows(this.em, "select * from ingestion_rules where org_id = ? order by created, rule_id", [orgId]);
    return rows.map(ruleFromRow);
  }

  async page(orgId: string, limit: number, after: { created: string; ruleId: string } | undefined): Promise<{ rows: IngestionRuleRecord[]; total: number }> {
    const keyset = after ? { $or: [{ created: { $gt: new Date(after.created) } }, { created: new Date(after.created), ruleId: { $gt: after.ruleId } }] } : {};
    const [rows, total] = await Promise.all([
      this.em.find(IngestionRule, { orgId, ...keyset }, { orderBy: { created: "asc", ruleId: "asc" }, limit }),
      this.em.count(IngestionRule, { orgId }),
    ]);
    return { rows, total };
  }

  // Parameters go as JSON text: knex expands an array parameter into a list of placeholders.
  // A plain insert would abort the surrounding transaction on a name clash; this one skips the row.
  async insert(record: IngestionRuleRecord): Promise<boolean> {
    const inserted = await this.em.execute(
      `insert into ingestion_rules (rule_id, org_id, name, description, include_patterns, exclude_patterns, invocation, auto_ingest, trigger_id, created, created_by, modified, modified_by)
       values (?, ?, ?, ?, array(select jsonb_array_elements_text(?::jsonb)), array(select jsonb_array_elements_text(?::jsonb)), ?::jsonb, ?, ?, ?, ?, ?, ?) on conflict (org_id, name) do nothing returning rule_id`,
      [
        record.ruleId,
        record.orgId,
        record.name,
        record.description,
        JSON.stringify(record.includePatterns),
        JSON.stringify(record.excludePatterns),
        record.invocation === null ? null : JSON.stringify(record.invocation),
        record.autoIngest,
        record.triggerId,
        record.created,
        record.createdBy,
        record.modified,
        record.modifiedBy,
      ],
    );
    return inserted.length > 0;
  }

  remove(record: IngestionRuleRecord): void {
    this.em.remove(record);
  }

  async orgsToResendPaths(limit: number): Promise<string[]> {
    return (await this.em.execute<{ org_id: string }[]>("select org_id from rule_paths_resend order by org_id limit ?", [limit])).map((row) => row.org_id);
  }

  async pathsResent(orgId: string): Promise<void> {
    await this.em.execute("delete from rule_paths_resend where org_id = ?", [orgId]);
  }

  async seeded(orgId: string): Promise<boolean> {
    return (await this.em.execute("select 1 from ingestion_rule_seeded_orgs where org_id = ?", [orgId])).length > 0;
  }

  async markSeeded(orgId: string): Promise<boolean> {
    const rows = await this.em.execute("insert into ingestion_rule_seeded_orgs (org_id, seeded) values (?, now()) on conflict do nothing returning org_id", [orgId]);
    return rows.length > 0;
  }

  async latestRuns(orgId: string, fileIds: string[]): Promise<RuleRunRow[]> {
    if (fileIds.length === 0) return [];
    const subjects = fileIds.map((id) => `roboto://${orgId}/file/${id}`);
    const rows = await this.em.execute<Record<string, unknown>[]>(
      `select distinct on (d.subject) d.subject, d.trigger_id, d.claimed_at, d.status, d.status_detail, d.result_ref, r.rule_id,
              i.last_status, i.status_history->-1->>'detail' as invocation_detail
       from trigger_dispatches d
       join ingestion_rules r on r.trigger_id = d.trigger_id and r.org_id = d.org_id
       left join invocations i on i.invocation_id = d.result_ref
       where d.org_id = ? and d.subject in (select jsonb_array_elements_text(?::jsonb))
       order by d.subject, d.dispatch_id desc`,
      [orgId, JSON.stringify(subjects)],
    );
    return rows.map((row) => ({
      fileId: String(row.subject).slice(String(row.subject).lastIndexOf("/") + 1),
      ruleId: String(row.rule_id),
      triggerId: String(row.trigger_id),
      claimedAt: new Date(row.claimed_at as string | Date),
      dispatchStatus: String(row.status),
      dispatchDetail: (row.status_detail as string | null) ?? null,
      invocationId: (row.result_ref as string | null) ?? null,
      invocationStatus: row.last_status === null || row.last_status === undefined ? null : Number(row.last_status),
      invocationDetail: (row.invocation_detail as string | null) ?? null,
    }));
  }
}

function ruleFromRow(row: Record<string, unknown>): IngestionRuleRecord {
  return {
    ruleId: row.rule_id as string,
    orgId: row.org_id as string,
    name: row.name as string,
    description: row.description as string | null,
    includePatterns: row.include_patterns as string[],
    excludePatterns: row.exclude_patterns as string[],
    invocation: row.invocation as JsonObject | null,
    autoIngest: row.auto_ingest as boolean,
    triggerId: row.trigger_id as string | null,
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
  };
}
