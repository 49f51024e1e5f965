import { newId, notFound, type Principal } from "@hangar/shared";
import { checkName } from "./names";
import type { TokenRecord } from "./records";
import type { AdminUnitOfWork, TokenRepository } from "./repositories";
import { expiryFrom, hashSecret, newTokenSecret, parseApiScopes } from "./tokens";

/** A token to mint, as the request gave it. */
export interface TokenRequest {
  name: string;
  description?: string | undefined;
  expiryDays: bigint;
  apiScopes: readonly string[];
}

/** A token just minted, with its secret: the only time the secret exists outside its holder. */
export interface MintedToken {
  token: TokenRecord;
  secret: string;
}

/** A new, enabled token of `userId` and its secret; validates `name`, `expiry_days` and `api_scopes` in that order. */
export function mintToken(userId: string, request: TokenRequest): MintedToken {
  const name = checkName(request.name, "name");
  // One instant for both, so a token lives exactly `expiry_days` days.
  const created = new Date();
  const expires = expiryFrom(request.expiryDays, created);
  const secret = newTokenSecret();
  const token = {
    tokenId: newId("tk"),
    userId,
    name,
    description: request.description ?? null,
    secretHash: hashSecret(secret),
    apiScopes: parseApiScopes(request.apiScopes),
    created,
    expires,
    lastUsed: null,
    enabled: true,
  };
  return { token, secret };
}

/** Mints and stores a token of the calling user. */
export async function createApiToken(uow: AdminUnitOfWork, userId: string, request: TokenRequest): Promise<MintedToken> {
  const minted = mintToken(userId, request);
  await uow.repositories().tokens.add(minted.token);
  return minted;
}

/** The user's tokens, oldest first. */
export function listApiTokens(uow: AdminUnitOfWork, userId: string): Promise<TokenRecord[]> {
  return uow.repositories().tokens.ofUser(userId);
}

/** A token of the caller (any token for a system admin); anyone else's is 404, as a missing one. */
export function getApiToken(uow: AdminUnitOfWork, caller: Principal, tokenId: string): Promise<TokenRecord> {
  return ownToken(uow.repositories().tokens, caller, tokenId);
}

/** Deletes a token of the caller (see `getApiToken` for whose). */
export async function deleteApiToken(uow: AdminUnitOfWork, caller: Principal, tokenId: string): Promise<void> {
  const tokens = uow.repositories().tokens;
  await tokens.remove((await ownToken(tokens, caller, tokenId)).tokenId);
}

/** Enables or disables a token of the caller (see `getApiToken` for whose); returns it as it now is. */
export async function setApiTokenEnabled(uow: AdminUnitOfWork, caller: Principal, tokenId: string, enabled: boolean): Promise<TokenRecord> {
  const tokens = uow.repositories().tokens;
  const token = await ownToken(tokens, caller, tokenId);
  await tokens.setEnabled(token.tokenId, enabled);
  return { ...token, enabled };
}

async function ownToken(tokens: TokenRepository, caller: Principal, tokenId: string): Promise<TokenRecord> {
  const token = await tokens.find(tokenId);
  if (!token || (token.userId !== caller.subject && !caller.isSystemAdmin)) throw notFound("API token", tokenId);
  return token;
}
