import { notFound, readableOrg, recordOrg, requireOrg, unauthenticated, type Principal, type UnitOfWork } from "@hangar/shared";
import type { Actor, OrgActor } from "../domain/actor";
import type { OwnedRecord, RecordOwnerRepository } from "../domain/repositories";

/** The caller as a reader: the org whose records it may read (none: every lookup is a 404, nothing leaks). */
export function readerOf(caller: Principal): Actor {
  return { orgId: readableOrg(caller), subject: caller.subject };
}

/** The caller as a creator: the org it acts in (a 400 or 403 when it acts in none). */
export function writerOf(caller: Principal): OrgActor {
  return { orgId: requireOrg(caller), subject: caller.subject };
}

/**
 * The org of the record a by-id call addresses (`recordOrg`): a caller in several orgs who names
 * none reaches the record in whichever of its orgs holds it. Undefined: every lookup is a 404.
 */
export function orgOfRecord(uow: UnitOfWork<{ owners: RecordOwnerRepository }>, caller: Principal, kind: OwnedRecord, id: string): Promise<string | undefined> {
  return recordOrg(caller, () => uow.repositories().owners.orgOf(kind, id));
}

/** The caller as a reader of the record a by-id call addresses (`orgOfRecord`). */
export async function readerOfRecord(uow: UnitOfWork<{ owners: RecordOwnerRepository }>, caller: Principal, kind: OwnedRecord, id: string): Promise<Actor> {
  return { orgId: await orgOfRecord(uow, caller, kind, id), subject: caller.subject };
}

/** How the 404s of the use cases name each kind of record, so this one reads the same. */
const LABEL: Record<OwnedRecord, string> = { dataset: "dataset", file: "file", upload: "upload transaction", collection: "collection" };

/** The caller as the changer of the record a by-id call addresses: a 404 naming it when the caller may not reach it. */
export async function writerOfRecord(uow: UnitOfWork<{ owners: RecordOwnerRepository }>, caller: Principal, kind: OwnedRecord, id: string): Promise<OrgActor> {
  const orgId = await orgOfRecord(uow, caller, kind, id);
  if (!orgId) throw notFound(LABEL[kind], id);
  return { orgId, subject: caller.subject };
}

/** The caller of an operation only the platform's services make (it has no HTTP route): a user, even with a signed principal, is refused. */
export function serviceCaller(caller: Principal): Principal {
  if (caller.kind !== "service") throw unauthenticated("only the platform services call this operation");
  return caller;
}
