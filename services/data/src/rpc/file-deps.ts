import type { Principal, UnitOfWork } from "@hangar/shared";
import type { DataRepositories } from "../domain/repositories";
import type { ObjectStore } from "../object-store/object-store";
import type { AssociationRef, ResolvedAssociation } from "../domain/associations";
import type { BuiltinInvocations } from "../domain/platform-writers";

/**
 * Resolves the association a request names (dataset, org, device or device type), checked to be
 * one the caller may use: anything else is a 404. `typeField` names the type field in errors.
 */
export type AssociationResolver = (caller: Principal, ref: AssociationRef, typeField: string) => Promise<ResolvedAssociation>;

/** What the handlers of files, uploads, imports, moves and directories are built from; `index.ts` wires them. */
export interface FileHandlerDeps {
  /** The data service's unit of work: the only way these handlers reach the database. */
  uow: UnitOfWork<DataRepositories>;
  /** Where file bytes live. */
  objects: ObjectStore;
  resolveAssociation: AssociationResolver;
  /** Wakes the outbox relay after a commit that recorded events. */
  eventsWritten: () => void;
  /** Which invocations run the platform's built-in actions (the only writers of `.hangar/`). */
  builtinInvocations: BuiltinInvocations;
}
