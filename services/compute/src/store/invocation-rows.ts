import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { nullableTimestampFromRow, textArrayLiteral, timestampFromRow, type EntityManager } from "@hangar/shared";
import type { InvocationRecord, StatusEntry } from "../domain/records";

type Row = Record<string, unknown>;

/**
 * The invocations table in explicit SQL, shared by the invocation and lease stores: the lifecycle
 * reads and writes every invocation on its way from trigger to runner, and MikroORM's query
 * building, hydration and change sets were most of the platform's CPU in bench:compute's burst.
 */

const INSERT_COLUMNS = [
  "invocation_id", "org_id", "action_org_id", "action_name", "action_digest", "data_source_type", "data_source_id",
  "input_data", "rich_input_data", "upload_destination", "idempotency_id", "compute_requirements", "container_parameters",
  "parameter_values", "source_type", "source_id", "created_by", "container_image_uri", "container_image_digest", "timeout",
  "last_status", "status_history", "created", "attempts",
];

/** Inserts an invocation unless the org has one with its idempotency id; returns the row as stored, or undefined. */
export async function insertInvocation(em: EntityManager, record: InvocationRecord): Promise<InvocationRecord | undefined> {
  const rows = await em.execute<Row[]>(
    `insert into invocations (${INSERT_COLUMNS.join(", ")}) values (${INSERT_COLUMNS.map((c) => (c === "input_data" ? "?::text[]" : "?")).join(", ")})
     on conflict (org_id, idempotency_id) where idempotency_id is not null do nothing
     returning *`,
    insertValues(record),
  );
  return rows[0] ? invocationFromRow(rows[0]) : undefined;
}

function insertValues(row: InvocationRecord): unknown[] {
  return [
    row.invocationId, row.orgId, row.actionOrgId, row.actionName, row.actionDigest, row.dataSourceType, row.dataSourceId,
    textArrayLiteral(row.inputData), jsonOrNull(row.richInputData), jsonOrNull(row.uploadDestination), row.idempotencyId, jsonOrNull(row.computeRequirements),
    jsonOrNull(row.containerParameters), jsonOrNull(row.parameterValues), row.sourceType, row.sourceId, row.createdBy,
    row.containerImageUri, row.containerImageDigest, row.timeout, row.lastStatus, jsonOrNull(row.statusHistory), row.created, row.attempts,
  ];
}

function jsonOrNull(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

/**
 * Writes what the lifecycle changes on invocations (status and history, runner lease, heartbeat,
 * timings, attempts, image digest, output destination), one statement for any number of rows.
 * The callers hold the rows' locks, so the whole set of columns is theirs to write.
 */
export async function updateInvocations(em: EntityManager, rows: readonly InvocationRecord[]): Promise<void> {
  if (rows.length === 0) return;
  const changes = rows.map((row) => ({
    invocation_id: row.invocationId,
    last_status: row.lastStatus,
    status_history: row.statusHistory,
    finished: row.finished,
    started: row.started,
    lease_id: row.leaseId,
    lease_runner: row.leaseRunner,
    lease_expires: row.leaseExpires,
    last_heartbeat: row.lastHeartbeat,
    attempts: row.attempts,
    container_image_digest: row.containerImageDigest,
    upload_destination: row.uploadDestination,
  }));
  await em.execute(
    `update invocations i set last_status = c.last_status, status_history = c.status_history, finished = c.finished, started = c.started,
       lease_id = c.lease_id, lease_runner = c.lease_runner, lease_expires = c.lease_expires, last_heartbeat = c.last_heartbeat,
       attempts = c.attempts, container_image_digest = c.container_image_digest, upload_destination = c.upload_destination
     from jsonb_to_recordset(?::jsonb) as c(invocation_id text, last_status integer, status_history jsonb, finished timestamptz,
       started timestamptz, lease_id text, lease_runner text, lease_expires timestamptz, last_heartbeat timestamptz, attempts integer,
       container_image_digest text, upload_destination jsonb)
     where i.invocation_id = c.invocation_id`,
    [JSON.stringify(changes)],
  );
}

/** An invocation from its `invocations` row (timestamps as the driver's text, jsonb and text[] parsed). */
export function invocationFromRow(row: Row): InvocationRecord {
  return {
    invocationId: row.invocation_id as string,
    orgId: row.org_id as string,
    actionOrgId: row.action_org_id as string,
    actionName: row.action_name as string,
    actionDigest: row.action_digest as string,
    dataSourceType: row.data_source_type as string,
    dataSourceId: row.data_source_id as string,
    inputData: row.input_data as string[],
    richInputData: row.rich_input_data as JsonValue | null,
    uploadDestination: row.upload_destination as JsonObject | null,
    idempotencyId: row.idempotency_id as string | null,
    computeRequirements: row.compute_requirements as JsonObject,
    containerParameters: row.container_parameters as JsonObject,
    parameterValues: row.parameter_values as JsonObject,
    sourceType: row.source_type as string,
    sourceId: row.source_id as string,
    createdBy: row.created_by as string,
    containerImageUri: row.container_image_uri as string | null,
    containerImageDigest: row.container_image_digest as string | null,
    timeout: Number(row.timeout),
    lastStatus: Number(row.last_status),
    statusHistory: row.status_history as StatusEntry[],
    lastHeartbeat: nullableTimestampFromRow(row.last_heartbeat),
    created: timestampFromRow(row.created),
    finished: nullableTimestampFromRow(row.finished),
    started: nullableTimestampFromRow(row.started),
    leaseId: row.lease_id as string | null,
    leaseRunner: row.lease_runner as string | null,
    leaseExpires: nullableTimestampFromRow(row.lease_expires),
    attempts: Number(row.attempts),
  };
}
