import { readableOrg, requireOrg, type Principal } from "@hangar/shared";
import type { Actor, OrgActor } from "../domain/actor";

/** The caller as a reader: the org whose records it may read (none: every lookup is a 404, nothing leaks). */
export function readerOf(caller: Principal): Actor {
  return { orgId: readableOrg(caller), subject: caller.subject };
}

/** The caller as a creator: the org it acts in (a 400 or 403 when it acts in none). */
export function writerOf(caller: Principal): OrgActor {
  return { orgId: requireOrg(caller), subject: caller.subject };
}
