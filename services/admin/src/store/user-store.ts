import type { EntityManager } from "@hangar/shared";
import type { UserRecord } from "../domain/records";
import type { UserRepository } from "../domain/repositories";
import { User } from "./entities";

/** `UserRepository` over MikroORM. */
export class UserStore implements UserRepository {
  constructor(private readonly em: EntityManager) {}

  find(userId: string): Promise<UserRecord | null> {
    return this.em.findOne(User, { userId });
  }

  byIds(userIds: readonly string[]): Promise<UserRecord[]> {
    return this.em.find(User, { userId: { $in: [...userIds] } });
  }

  count(): Promise<number> {
    return this.em.count(User, {});
  }

  async add(user: UserRecord): Promise<void> {
    this.em.create(User, user);
    await this.em.flush();
  }

  async addIfAbsent(user: UserRecord): Promise<void> {
    await this.em.upsert(User, user, { onConflictFields: ["userId"], onConflictAction: "ignore" });
  }

  // Memberships and tokens go with the user: their foreign keys cascade.
  async delete(userId: string): Promise<void> {
    await this.em.nativeDelete(User, { userId });
  }
}
