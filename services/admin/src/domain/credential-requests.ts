import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { invalidArgument, newId, notFound } from "@hangar/shared";
import { mintToken, type MintedToken } from "./api-tokens";
import type { AdminUnitOfWork } from "./repositories";
import { hashSecret } from "./tokens";

/**
 * The CLI's browser sign-in (`roboto auth login`): a credential request created without a token,
 * approved (or denied) by a signed-in user, and redeemed once by the CLI that holds the PKCE
 * verifier for an API token of the approving user. Nothing in the anonymous steps tells a caller
 * whether a user, a token or another request exists.
 */

/** How long a request may wait for approval and redemption (ten minutes, as the SDK documents). */
export const CREDENTIAL_REQUEST_TTL_MS = 10 * 60_000;

/** Longest token lifetime a request may ask for, in days (the SDK's MAX_CREDENTIAL_REQUEST_TOKEN_EXPIRY_DAYS). */
export const MAX_REQUEST_TOKEN_EXPIRY_DAYS = 365;

/** Wrong codes or verifiers one request survives; the next burns it, so guessing gets a handful of tries. */
export const MAX_EXCHANGE_FAILURES = 5;

/** Where a request stands. */
export type CredentialRequestStatus = "pending" | "approved" | "denied" | "redeemed" | "burned";

/** A stored credential request; the authorization code is kept as its SHA-256 only. */
export interface CredentialRequestRecord {
  credentialRequestId: string;
  codeChallenge: string;
  redirectUri: string | null;
  state: string | null;
  clientHostname: string;
  clientVersion: string;
  tokenExpiryDays: number;
  confirmationCode: string;
  status: CredentialRequestStatus;
  approvedBy: string | null;
  codeHash: string | null;
  failedExchanges: number;
  created: Date;
  expires: Date;
}

/** Persistence of credential requests. */
export interface CredentialRequestRepository {
  add(request: CredentialRequestRecord): Promise<void>;
  /** The request, locked until the transaction ends (approval and redemption happen once). */
  lock(credentialRequestId: string): Promise<CredentialRequestRecord | null>;
  update(credentialRequestId: string, changes: Partial<Pick<CredentialRequestRecord, "status" | "approvedBy" | "codeHash" | "failedExchanges">>): Promise<void>;
  /** Deletes requests expired before `before`, so abandoned sign-ins do not accumulate. */
  removeExpired(before: Date): Promise<void>;
}

/** A new request as the CLI sends it. */
export interface CredentialRequestInput {
  codeChallenge: string;
  codeChallengeMethod: string;
  redirectUri?: string | undefined;
  state?: string | undefined;
  clientHostname: string;
  clientVersion: string;
  tokenExpiryDays: bigint;
}

/** Validates and stores a new request; returns it with where the user approves it. */
export async function createCredentialRequest(uow: AdminUnitOfWork, input: CredentialRequestInput, publicUrl: string | undefined, now = new Date()): Promise<{ request: CredentialRequestRecord; approvalUrl: string }> {
  const request = newCredentialRequest(input, now);
  await uow.transaction(async ({ credentialRequests }) => {
    await credentialRequests.removeExpired(new Date(now.getTime() - 86_400_000));
    await credentialRequests.add(request);
  });
  const approvalUrl = `${publicUrl ?? ""}/v1/tokens/requests/approve?credential_request_id=${request.credentialRequestId}`;
  return { request, approvalUrl };
}

function newCredentialRequest(input: CredentialRequestInput, now: Date): CredentialRequestRecord {
  if (!/^[A-Za-z0-9_-]{43}$/.test(input.codeChallenge)) throw invalidArgument("code_challenge", "must be the unpadded base64url SHA-256 of the code verifier (43 characters)");
  if (input.codeChallengeMethod !== "" && input.codeChallengeMethod !== "S256") throw invalidArgument("code_challenge_method", "must be S256");
  const redirectUri = input.redirectUri === undefined ? null : checkRedirectUri(input.redirectUri);
  if (redirectUri !== null && input.state === undefined) throw invalidArgument("state", "is required with redirect_uri");
  if (redirectUri === null && input.state !== undefined) throw invalidArgument("state", "is only accepted with redirect_uri");
  if (input.state !== undefined && !/^[A-Za-z0-9._~-]{16,256}$/.test(input.state)) throw invalidArgument("state", "must be 16 to 256 URL-safe characters");
  if (input.tokenExpiryDays < 1n || input.tokenExpiryDays > BigInt(MAX_REQUEST_TOKEN_EXPIRY_DAYS)) throw invalidArgument("token_expiry_days", `must be from 1 to ${MAX_REQUEST_TOKEN_EXPIRY_DAYS}`);
  return {
    credentialRequestId: newId("cr"),
    codeChallenge: input.codeChallenge,
    redirectUri,
    state: input.state ?? null,
    clientHostname: printable(input.clientHostname, "client_hostname", 255),
    clientVersion: printable(input.clientVersion, "client_version", 64),
    tokenExpiryDays: Number(input.tokenExpiryDays),
    confirmationCode: confirmationCode(),
    status: "pending",
    approvedBy: null,
    codeHash: null,
    failedExchanges: 0,
    created: now,
    expires: new Date(now.getTime() + CREDENTIAL_REQUEST_TTL_MS),
  };
}

/** A loopback redirect (RFC 8252 §7.3): http to 127.0.0.1 or [::1], a port, path /callback, nothing else. */
function checkRedirectUri(value: string): string {
  const match = /^http:\/\/(127\.0\.0\.1|\[::1\]):(\d{1,5})\/callback$/.exec(value);
  const port = match ? Number(match[2]) : 0;
  if (port < 1 || port > 65535) throw invalidArgument("redirect_uri", "must be http://127.0.0.1:<port>/callback or http://[::1]:<port>/callback");
  return value;
}

function printable(value: string, field: string, max: number): string {
  if (!/^[\x20-\x7e]+$/.test(value) || value.length > max) throw invalidArgument(field, `must be 1 to ${max} printable ASCII characters`);
  return value;
}

/** Eight characters the user compares by eye, from an alphabet without look-alikes: `XXXX-XXXX`. */
function confirmationCode(): string {
  const alphabet = "BCDFGHJKLMNPQRSTVWXZ23456789";
  const chars = Array.from({ length: 8 }, () => alphabet[randomInt(alphabet.length)]!);
  return `${chars.slice(0, 4).join("")}-${chars.slice(4).join("")}`;
}

/** What approving hands back: the one-time code, and where the browser goes with it. */
export interface Approval {
  authorizationCode: string;
  redirectUrl: string | null;
  request: CredentialRequestRecord;
}

/**
 * Approves a pending request as `userId`, who confirms the code the CLI printed. A request that is
 * unknown, expired, no longer pending or whose code does not match is a 404 alike.
 */
export function approveCredentialRequest(uow: AdminUnitOfWork, userId: string, credentialRequestId: string, code: string, now = new Date()): Promise<Approval> {
  return uow.transaction(async ({ credentialRequests }) => {
    const request = await pendingRequest(credentialRequests, credentialRequestId, now);
    if (!sameText(request.confirmationCode, code.trim().toUpperCase())) throw notFound("credential request", credentialRequestId);
    const authorizationCode = randomBytes(32).toString("base64url");
    await credentialRequests.update(request.credentialRequestId, { status: "approved", approvedBy: userId, codeHash: hashSecret(authorizationCode) });
    return { authorizationCode, redirectUrl: redirectWith(request, { code: authorizationCode }), request };
  });
}

/** Denies a pending request; the browser goes back to the CLI with `error=access_denied`. */
export function denyCredentialRequest(uow: AdminUnitOfWork, credentialRequestId: string, now = new Date()): Promise<string | null> {
  return uow.transaction(async ({ credentialRequests }) => {
    const request = await pendingRequest(credentialRequests, credentialRequestId, now);
    await credentialRequests.update(request.credentialRequestId, { status: "denied" });
    return redirectWith(request, { error: "access_denied" });
  });
}

async function pendingRequest(requests: CredentialRequestRepository, credentialRequestId: string, now: Date): Promise<CredentialRequestRecord> {
  const request = await requests.lock(credentialRequestId);
  if (!request || request.status !== "pending" || request.expires <= now) throw notFound("credential request", credentialRequestId);
  return request;
}

function redirectWith(request: CredentialRequestRecord, params: Record<string, string>): string | null {
  if (request.redirectUri === null) return null;
  return `${request.redirectUri}?${new URLSearchParams({ ...params, state: request.state ?? "" }).toString()}`;
}

/** What redeeming needs: the code the approval handed out and the verifier behind the challenge. */
export interface Exchange {
  credentialRequestId: string;
  authorizationCode: string;
  codeVerifier: string;
}

/**
 * Redeems an approved request, once, for a new token of the approving user. Every failure is the
 * same 400 (unknown, expired, not approved, redeemed, wrong code or verifier), so the answer says
 * nothing about what exists; a wrong code or verifier counts towards burning the request.
 */
export async function exchangeCredentialRequest(uow: AdminUnitOfWork, exchange: Exchange, now = new Date()): Promise<MintedToken> {
  const outcome = await uow.transaction(async ({ credentialRequests, tokens }): Promise<MintedToken | undefined> => {
    const request = await credentialRequests.lock(exchange.credentialRequestId);
    if (!request || request.status !== "approved" || request.expires <= now || request.approvedBy === null) return undefined;
    if (!sameText(request.codeHash ?? "", hashSecret(exchange.authorizationCode)) || !sameText(request.codeChallenge, challengeOf(exchange.codeVerifier))) {
      const failedExchanges = request.failedExchanges + 1;
      await credentialRequests.update(request.credentialRequestId, { failedExchanges, ...(failedExchanges >= MAX_EXCHANGE_FAILURES ? { status: "burned" as const } : {}) });
      return undefined;
    }
    const minted = mintToken(request.approvedBy, { name: `roboto CLI on ${request.clientHostname}`.slice(0, 256), expiryDays: BigInt(request.tokenExpiryDays), apiScopes: [] });
    await tokens.add(minted.token);
    await credentialRequests.update(request.credentialRequestId, { status: "redeemed", codeHash: null });
    return minted;
  });
  if (outcome === undefined) throw new ConnectError("authorization_code: no approved credential request matches this id, code and verifier", Code.InvalidArgument);
  return outcome;
}

/** RFC 7636 S256: the unpadded base64url SHA-256 of the verifier. */
export function challengeOf(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}
