import { Migration } from "@mikro-orm/migrations";

/**
 * Credential requests of the CLI's browser sign-in (`roboto auth login`): created without a token,
 * approved by a user, redeemed once. Only the SHA-256 of an approval's authorization code is kept;
 * `expires` is indexed for the sweep of abandoned requests that each new one runs.
 */
export class Migration0005CredentialRequests extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table credential_requests (
        credential_request_id text primary key,
        code_challenge text not null,
        redirect_uri text,
        state text,
        client_hostname text not null,
        client_version text not null,
        token_expiry_days integer not null,
        confirmation_code text not null,
        status text not null,
        approved_by text,
        code_hash text,
        failed_exchanges integer not null default 0,
        created timestamptz not null,
        expires timestamptz not null
      );
      create index credential_requests_expires_idx on credential_requests (expires);
    `);
  }
}
