import { invalidArgument, quoteValue } from "@hangar/shared";
import type { TriggerRecord } from "./records";

/** The ManagedBy of a trigger an ingestion rule owns. */
export function ruleOwner(ruleId: string): { kind: "ingestion_rule"; id: string } {
  return { kind: "ingestion_rule", id: ruleId };
}

/**
 * Refuses a change of a managed trigger through the trigger routes (sdk-0.62-routes.md rows 5
 * and 6): one an ingestion rule owns changes only through its rule, and a system one may only be
 * enabled or disabled. `field` names the trigger as the route addresses it; `onlyEnabled` says
 * the change is a switch on or off.
 */
export function refuseManagedChange(trigger: TriggerRecord, field: string, onlyEnabled: boolean): void {
  const owner = trigger.managedBy;
  if (owner === null) return;
  if (owner.kind === "ingestion_rule") {
    throw invalidArgument(field, `trigger ${quoteValue(trigger.triggerId)} is managed by ingestion rule ${quoteValue(owner.id)}: change the rule instead (its auto_ingest switches the trigger)`);
  }
  if (!onlyEnabled) throw invalidArgument(field, `trigger ${quoteValue(trigger.triggerId)} is managed by the platform (${quoteValue(owner.id)}): it may only be enabled or disabled`);
}
