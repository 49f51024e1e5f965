import type { JsonValue } from "@bufbuild/protobuf";
import type { EntityManager } from "@hangar/shared";
import type { UserConfigRepository } from "../domain/user-config";

/** `UserConfigRepository` over the `user_config` table. */
export class UserConfigStore implements UserConfigRepository {
  constructor(private readonly em: EntityManager) {}

  async get(userId: string, key: string): Promise<JsonValue | undefined> {
    const rows = await this.em.execute<{ value: JsonValue }[]>("select value from user_config where user_id = ? and key = ?", [userId, key]);
    return rows[0]?.value;
  }

  async set(userId: string, key: string, value: JsonValue): Promise<void> {
    await this.em.execute(
      "insert into user_config (user_id, key, value, modified) values (?, ?, ?::jsonb, now()) on conflict (user_id, key) do update set value = excluded.value, modified = now()",
      [userId, key, JSON.stringify(value)],
    );
  }
}
