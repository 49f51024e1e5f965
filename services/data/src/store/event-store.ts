import { recordEvent, type EntityManager, type NewEvent } from "@hangar/shared";
import type { EventRepository } from "../domain/repositories";

/** The outbox as a repository: events recorded here commit or roll back with the unit of work's changes. */
export class EventStore implements EventRepository {
  constructor(private readonly em: EntityManager) {}

  /** Adds an event to the outbox in this unit of work (see the shared `recordEvent`). */
  record(event: NewEvent): void {
    recordEvent(this.em, event);
  }
}
