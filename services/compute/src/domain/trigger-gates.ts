import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { matchesAnyGlob, type QueryNode } from "@hangar/shared";
import { idempotencyToken, type PlatformEvent } from "./platform-events";
import type { TriggerDispatchRecord, TriggerRecord } from "./records";
import { sourceEventTypes } from "./trigger-definition";
import { evaluateCondition, valueAt, type LeafTrace, type TriggerNamespace } from "./trigger-namespace";
import { modelView, storedSource } from "./trigger-view";

/** One gate of the evaluator's trace (the SDK's TriggerDryRunGate, in wire JSON). */
export type Gate = JsonObject & { gate: string; status: "passed" | "failed" | "not_evaluated" };

/** What the gates decided: the trace, the token the firing is de-duplicated on, the targets accepted. */
export interface FiringPlan {
  wouldFire: boolean;
  verdict: string;
  gates: Gate[];
  token: string | undefined;
  accepted: JsonObject[];
}

/** What the gates read besides the trigger and the event. */
export interface GateReaders {
  /** True when each pattern matches some available file of the dataset. */
  inputsPresent(datasetId: string, patterns: string[]): Promise<boolean>;
  /** The dispatches already made for a token (dry runs only: a live firing claims its slots instead). */
  slots?(triggerId: string, token: string): Promise<TriggerDispatchRecord[]>;
}

const GATES = ["subscribed", "enabled", "condition", "target_prefilter", "already_fired"] as const;

/**
 * Runs a v2 trigger's gates in order for an event: subscribed, enabled, condition, target
 * prefilter (an action target with required_inputs needs its inputs: the event's file matches
 * one, or the dataset has a file for each), already fired. The first failed gate stops the rest.
 */
export async function runGates(trigger: TriggerRecord, event: PlatformEvent, namespace: TriggerNamespace, readers: GateReaders): Promise<FiringPlan> {
  const gates: Gate[] = [];
  const fail = (gate: Gate, verdict: string): FiringPlan => {
    gates.push(gate);
    for (const rest of GATES.slice(gates.length)) gates.push({ gate: rest, status: "not_evaluated" });
    return { wouldFire: false, verdict, gates, token: undefined, accepted: [] };
  };
  const source = storedSource(trigger);
  if (!sourceEventTypes(source).includes(event.type)) return fail({ gate: "subscribed", status: "failed", detail: `the trigger does not fire on ${event.type}` }, "not subscribed");
  gates.push({ gate: "subscribed", status: "passed" });
  if (!trigger.enabled) return fail({ gate: "enabled", status: "failed", detail: "the trigger is disabled" }, "disabled");
  gates.push({ gate: "enabled", status: "passed" });
  const leaves: LeafTrace[] = [];
  const holds = trigger.condition === null || evaluateCondition(trigger.condition as unknown as QueryNode, namespace, leaves);
  const conditionGate = { gate: "condition", condition_leaves: leaves as unknown as JsonValue[] };
  if (!holds) return fail({ ...conditionGate, status: "failed" }, "condition not met");
  gates.push({ ...conditionGate, status: "passed" });
  const traces = await Promise.all(modelView(trigger).targets.map((target) => acceptance(target, namespace, readers)));
  const accepted = modelView(trigger).targets.filter((_, i) => traces[i]!.accepted);
  if (accepted.length === 0) return fail({ gate: "target_prefilter", status: "failed", targets: traces }, "no target accepts the event");
  gates.push({ gate: "target_prefilter", status: "passed", targets: traces });
  const token = idempotencyToken(event, source.type === "schedule" ? "occurrence" : source.oncePer)!;
  return alreadyFired(trigger, token, accepted, gates, readers);
}

async function alreadyFired(trigger: TriggerRecord, token: string, accepted: JsonObject[], gates: Gate[], readers: GateReaders): Promise<FiringPlan> {
  const taken = readers.slots ? await readers.slots(trigger.triggerId, token) : [];
  const slots = accepted.map((target) => {
    const slot = taken.find((d) => d.targetId === target.target_id);
    return { target_id: target.target_id!, occupied: slot !== undefined, status: slot?.status ?? null, result_ref: slot?.resultRef ?? null };
  });
  const open = accepted.filter((_, i) => !slots[i]!.occupied);
  const gate: Gate = { gate: "already_fired", status: open.length > 0 ? "passed" : "failed", idempotency_token: token, dispatches: slots };
  gates.push(gate);
  return open.length > 0 ? { wouldFire: true, verdict: "would fire", gates, token, accepted: open } : { wouldFire: false, verdict: "already fired", gates, token, accepted: [] };
}

async function acceptance(target: JsonObject, namespace: TriggerNamespace, readers: GateReaders): Promise<JsonObject> {
  const trace = { target_id: target.target_id!, target_type: target.type! };
  const patterns = (target.required_inputs as string[] | undefined) ?? [];
  if (target.type !== "invoke_action" || patterns.length === 0) return { ...trace, accepted: true, reason: null };
  const path = valueAt(namespace, "file.relative_path");
  if (typeof path === "string") {
    // `exclude_inputs` is set on the targets of ingestion rules' managed triggers only (the rule's excludes).
    const excluded = matchesAnyGlob((target.exclude_inputs as string[] | undefined) ?? [], path);
    const matches = !excluded && matchesAnyGlob(patterns, path);
    return { ...trace, accepted: matches, reason: matches ? null : excluded ? "the event's file matches an exclude pattern" : "the event's file matches no required_inputs pattern" };
  }
  const datasetId = valueAt(namespace, "dataset.dataset_id");
  const present = typeof datasetId === "string" && (await readers.inputsPresent(datasetId, patterns));
  return { ...trace, accepted: present, reason: present ? null : "the dataset lacks a file for some required_inputs pattern" };
}
