import type { EntityManager } from "@hangar/shared";
import type { CredentialRequestRecord, CredentialRequestRepository } from "../domain/credential-requests";

/** The table's columns by the record's keys. */
const COLUMNS: Record<keyof CredentialRequestRecord, string> = {
  credentialRequestId: "credential_request_id",
  codeChallenge: "code_challenge",
  redirectUri: "redirect_uri",
  state: "state",
  clientHostname: "client_hostname",
  clientVersion: "client_version",
  tokenExpiryDays: "token_expiry_days",
  confirmationCode: "confirmation_code",
  status: "status",
  approvedBy: "approved_by",
  codeHash: "code_hash",
  failedExchanges: "failed_exchanges",
  created: "created",
  expires: "expires",
};
const KEYS = Object.keys(COLUMNS) as (keyof CredentialRequestRecord)[];

/** `CredentialRequestRepository` over the `credential_requests` table (plain SQL: no entity, one row at a time). */
export class CredentialRequestStore implements CredentialRequestRepository {
  constructor(private readonly em: EntityManager) {}

  async add(request: CredentialRequestRecord): Promise<void> {
    await this.em.execute(`insert into credential_requests (${KEYS.map((k) => COLUMNS[k]).join(", ")}) values (${KEYS.map(() => "?").join(", ")})`, KEYS.map((k) => request[k]));
  }

  async lock(credentialRequestId: string): Promise<CredentialRequestRecord | null> {
    const rows = await this.em.execute<Record<string, unknown>[]>("select * from credential_requests where credential_request_id = ? for update", [credentialRequestId]);
    return rows[0] ? recordOf(rows[0]) : null;
  }

  async update(credentialRequestId: string, changes: Partial<CredentialRequestRecord>): Promise<void> {
    const keys = Object.keys(changes) as (keyof CredentialRequestRecord)[];
    if (keys.length === 0) return;
    await this.em.execute(`update credential_requests set ${keys.map((k) => `${COLUMNS[k]} = ?`).join(", ")} where credential_request_id = ?`, [...keys.map((k) => changes[k]), credentialRequestId]);
  }

  async removeExpired(before: Date): Promise<void> {
    await this.em.execute("delete from credential_requests where expires < ?", [before]);
  }
}

function recordOf(row: Record<string, unknown>): CredentialRequestRecord {
  const record = Object.fromEntries(KEYS.map((k) => [k, row[COLUMNS[k]]])) as unknown as CredentialRequestRecord;
  return { ...record, created: new Date(record.created), expires: new Date(record.expires) };
}
