import type { EntityManager } from "@hangar/shared";
import type { TokenRecord } from "../domain/records";
import type { TokenRepository } from "../domain/repositories";
import { ApiToken } from "./entities";

/** `TokenRepository` over MikroORM. */
export class TokenStore implements TokenRepository {
  constructor(private readonly em: EntityManager) {}

  find(tokenId: string): Promise<TokenRecord | null> {
    return this.em.findOne(ApiToken, { tokenId });
  }

  findByHash(secretHash: string): Promise<TokenRecord | null> {
    return this.em.findOne(ApiToken, { secretHash });
  }

  ofUser(userId: string): Promise<TokenRecord[]> {
    return this.em.find(ApiToken, { userId }, { orderBy: { created: "asc", tokenId: "asc" } });
  }

  async add(token: TokenRecord): Promise<void> {
    this.em.create(ApiToken, token);
    await this.em.flush();
  }

  async setEnabled(tokenId: string, enabled: boolean): Promise<void> {
    const token = await this.em.findOneOrFail(ApiToken, { tokenId });
    token.enabled = enabled;
    await this.em.flush();
  }

  async remove(tokenId: string): Promise<void> {
    await this.em.nativeDelete(ApiToken, { tokenId });
  }

  // A conditional update, so that concurrent authentications of one token write once a minute.
  async touch(tokenId: string): Promise<void> {
    await this.em.execute(
      "update api_tokens set last_used = now() where token_id = ? and (last_used is null or last_used < now() - interval '1 minute')",
      [tokenId],
    );
  }
}
