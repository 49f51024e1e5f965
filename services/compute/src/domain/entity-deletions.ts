import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { TOPICS } from "@hangar/shared";
import { ComputeEntityDeletedSchema } from "@hangar/shared/proto/events";
import type { TriggerRecord } from "./records";
import type { ComputeRepositories, EventRepository } from "./repositories";

/** The compute entities other services refer to (comments in the data service) by the id given here. */
type DeletedEntityType = "action" | "invocation" | "trigger";

/**
 * Announces a deletion in the deleting transaction, so the entity's comments leave with it: an
 * action or trigger is referred to by its name, an invocation by its id.
 */
export function recordEntityDeleted(events: EventRepository, orgId: string, entityType: DeletedEntityType, entityId: string): void {
  const event = create(ComputeEntityDeletedSchema, { orgId, entityType, entityId, deleted: timestampFromDate(new Date()) });
  events.record({ topic: TOPICS.computeEntityDeleted, key: entityId, payload: toBinary(ComputeEntityDeletedSchema, event) });
}

/** Removes a trigger and announces it in the same transaction. */
export function removeTrigger({ triggers, events }: Pick<ComputeRepositories, "triggers" | "events">, trigger: TriggerRecord): void {
  triggers.remove(trigger);
  recordEntityDeleted(events, trigger.orgId, "trigger", trigger.name);
}
