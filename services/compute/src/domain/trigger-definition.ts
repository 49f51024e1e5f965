import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { globToRegex, invalidArgument, isConditionGroup, parseConditionJson, quoteValue, type QueryNode } from "@hangar/shared";
import { checkTimeout } from "./compute-defaults";
import { parseUploadDestination } from "./invocation-request";
import { parseCron, type CronSchedule } from "./cron-schedule";
import { describeEvent, isPlatformEventType, ONCE_PER, RESERVED_ROOTS, type OncePer, type PlatformEventType } from "./platform-events";

/** At most this many targets per trigger: each matched event dispatches each of them. */
export const MAX_TARGETS = 20;

/** What a v2 trigger fires on, checked: platform events (with once_per) or a cron schedule. */
export type TriggerSource =
  | { type: "events"; events: PlatformEventType[]; oncePer: OncePer }
  | { type: "schedule"; cron: string; timeZone: string; schedule: CronSchedule };

/** The three target types; `start_agent` is refused until the assistant service has agents. */
export const TARGET_TYPES = ["invoke_action", "start_agent", "send_slack_message"] as const;

/** A trigger's definition, checked: source, condition and targets (in the stored JSON shape). */
export interface TriggerDefinition {
  source: TriggerSource;
  condition: QueryNode | null;
  targets: JsonObject[];
}

/** Reads and checks `fires_on` (an EventSubscription or a Schedule; a schedule's `timezone` defaults to UTC). */
export function parseSource(json: JsonValue | undefined, field = "fires_on"): TriggerSource {
  const source = objectAt(json, field);
  if (source.type === "schedule") {
    const cron = stringAt(source.cron, `${field}.cron`);
    const timeZone = source.timezone === undefined || source.timezone === null ? "UTC" : stringAt(source.timezone, `${field}.timezone`);
    return { type: "schedule", cron, timeZone, schedule: parseCron(cron, timeZone, `${field}.cron`) };
  }
  if (source.type !== "events") throw invalidArgument(`${field}.type`, `must be events or schedule, got ${quoteValue(source.type)}`);
  const events = arrayAt(source.events, `${field}.events`).map((value, i) => eventTypeAt(value, `${field}.events[${i}]`));
  if (events.length === 0) throw invalidArgument(`${field}.events`, "must list at least one platform event");
  const oncePer = stringAt(source.once_per, `${field}.once_per`);
  if (!(ONCE_PER as readonly string[]).includes(oncePer)) throw invalidArgument(`${field}.once_per`, `must be one of ${ONCE_PER.join(", ")}, got ${quoteValue(oncePer)}`);
  checkSubscription(events, oncePer as OncePer, field);
  return { type: "events", events: [...new Set(events)], oncePer: oncePer as OncePer };
}

function eventTypeAt(value: JsonValue, field: string): PlatformEventType {
  const type = stringAt(value, field);
  if (!isPlatformEventType(type)) throw invalidArgument(field, `is not a platform event type: ${quoteValue(type)}`);
  if (!describeEvent(type).subscribable) throw invalidArgument(field, `${type} cannot be subscribed to; declare a schedule source instead`);
  return type;
}

function checkSubscription(events: PlatformEventType[], oncePer: OncePer, field: string): void {
  for (const type of events) {
    if (describeEvent(type).oncePer[oncePer] === undefined) {
      const legal = Object.keys(describeEvent(type).oncePer).join(", ");
      throw invalidArgument(`${field}.once_per`, `${oncePer} is not legal for ${type}; it supports ${legal}`);
    }
  }
  const subjects = new Set(events.map((type) => describeEvent(type).subjectType));
  if (subjects.size > 1) throw invalidArgument(`${field}.events`, `are about different kinds of entity (${[...subjects].join(", ")}); create one trigger per kind`);
}

/** The event types a source fires for: its subscriptions, or `schedule.fired`. */
export function sourceEventTypes(source: TriggerSource): PlatformEventType[] {
  return source.type === "schedule" ? ["schedule.fired"] : source.events;
}

/** The namespace roots every event of the source exposes. */
export function sharedRoots(source: TriggerSource): string[] {
  const [first, ...rest] = sourceEventTypes(source).map((type) => describeEvent(type).roots);
  return first!.filter((root) => rest.every((roots) => roots.includes(root)));
}

/** The source in its stored (wire) JSON shape. */
export function sourceJson(source: TriggerSource): JsonObject {
  if (source.type === "events") return { type: "events", events: source.events, once_per: source.oncePer };
  return { type: "schedule", cron: source.cron, once_per: "occurrence", ...(source.timeZone !== "UTC" ? { timezone: source.timeZone } : {}) };
}

/**
 * Reads and checks a condition against the source: each field's root (its first segment when
 * that is a namespace root, otherwise the events' default root) must be exposed by every event.
 */
export function parseTriggerCondition(json: JsonValue | undefined, source: TriggerSource): QueryNode | null {
  const node = parseConditionJson(json, "condition");
  if (node === undefined) return null;
  const roots = [...sharedRoots(source), ...RESERVED_ROOTS];
  const defaults = new Set(sourceEventTypes(source).map((type) => describeEvent(type).defaultRoot));
  for (const leaf of leavesOf(node)) {
    const root = explicitRoot(leaf.field);
    if (root === undefined ? defaults.size > 1 : !roots.includes(root)) {
      throw invalidArgument("condition", `field ${quoteValue(leaf.field)} names a root the trigger's events do not all expose (they share: ${roots.join(", ")})`);
    }
  }
  return node;
}

/** Every leaf of a condition, in order. */
export function leavesOf(node: QueryNode): Extract<QueryNode, { field: string }>[] {
  return isConditionGroup(node) ? node.conditions.flatMap(leavesOf) : [node];
}

const ALL_ROOTS = new Set(["envelope", "trigger", "file", "dataset", "upload", "changed", "tag", "invocation", "action", "session", "event", "schedule"]);

/** The namespace root a condition field names explicitly, or undefined when it relies on the default root. */
export function explicitRoot(field: string): string | undefined {
  const first = field.split(".", 1)[0]!;
  return ALL_ROOTS.has(first) ? first : undefined;
}

/**
 * Reads and checks `targets` (1 to MAX_TARGETS, ids unique), filling defaults. `start_agent` is
 * a 400 until this platform runs agents; a Slack target's channel is checked by the caller.
 */
export function parseTargets(json: JsonValue | undefined, source: TriggerSource): JsonObject[] {
  const list = arrayAt(json, "targets");
  if (list.length === 0) throw invalidArgument("targets", "must list at least one target");
  if (list.length > MAX_TARGETS) throw invalidArgument("targets", `must list at most ${MAX_TARGETS} targets`);
  const seen = new Set<string>();
  return list.map((value, i) => {
    const target = parseTarget(objectAt(value, `targets[${i}]`), source, `targets[${i}]`);
    if (seen.has(target.target_id as string)) throw invalidArgument(`targets[${i}].target_id`, `duplicates ${quoteValue(target.target_id)}; target ids are unique in a trigger`);
    seen.add(target.target_id as string);
    return target;
  });
}

/** Reads and checks one target (filling defaults); errors name fields under `field`. */
export function parseTarget(target: JsonObject, source: TriggerSource, field: string): JsonObject {
  const targetId = stringAt(target.target_id, `${field}.target_id`);
  switch (target.type) {
    case "invoke_action":
      return { type: "invoke_action", target_id: targetId, ...parseInvokeAction(target, source, field) };
    case "send_slack_message":
      return { type: "send_slack_message", target_id: targetId, channel_id: stringAt(target.channel_id, `${field}.channel_id`), text: stringAt(target.text, `${field}.text`) };
    case "start_agent":
      throw invalidArgument(`${field}.type`, "start_agent targets need the assistant service's agents, which this platform does not run yet");
    default:
      throw invalidArgument(`${field}.type`, `must be one of ${TARGET_TYPES.join(", ")}, got ${quoteValue(target.type)}`);
  }
}

function parseInvokeAction(target: JsonObject, source: TriggerSource, field: string): JsonObject {
  const action = objectAt(target.action, `${field}.action`);
  const requiredInputs = patternsAt(target.required_inputs, `${field}.required_inputs`);
  const additionalInputs = target.additional_inputs === null || target.additional_inputs === undefined ? null : patternsAt(target.additional_inputs, `${field}.additional_inputs`);
  if ((requiredInputs.length > 0 || additionalInputs) && !sharedRoots(source).includes("dataset")) {
    throw invalidArgument(`${field}.required_inputs`, "match files of the event's dataset, but the trigger's events name no dataset; select inputs with invocation_input instead");
  }
  if (source.type === "events" && describeEvent(source.events[0]!).subjectType === "file" && source.oncePer !== "dataset" && requiredInputs.length === 0) {
    throw invalidArgument(`${field}.required_inputs`, `must list a pattern: at once_per=${source.oncePer} the event's file is the action's input and must match one`);
  }
  const timeout = target.timeout === null || target.timeout === undefined ? null : checkTimeout(integerAt(target.timeout, `${field}.timeout`), `${field}.timeout`);
  return {
    action: { name: stringAt(action.name, `${field}.action.name`), digest: optionalString(action.digest, `${field}.action.digest`), owner: optionalString(action.owner, `${field}.action.owner`) },
    required_inputs: requiredInputs,
    additional_inputs: additionalInputs,
    parameter_values: target.parameter_values === null || target.parameter_values === undefined ? {} : objectAt(target.parameter_values, `${field}.parameter_values`),
    invocation_input: optionalObject(target.invocation_input, `${field}.invocation_input`),
    compute_requirement_overrides: optionalObject(target.compute_requirement_overrides, `${field}.compute_requirement_overrides`),
    container_parameter_overrides: optionalObject(target.container_parameter_overrides, `${field}.container_parameter_overrides`),
    timeout,
    upload_destination: uploadDestinationAt(target.upload_destination, `${field}.upload_destination`),
  };
}

/** A target's upload destination as given, once it reads as one (each firing parses it again). */
function uploadDestinationAt(json: JsonValue | undefined, field: string): JsonObject | null {
  parseUploadDestination(json, field);
  return optionalObject(json, field);
}

function patternsAt(json: JsonValue | undefined, field: string): string[] {
  if (json === null || json === undefined) return [];
  return arrayAt(json, field).map((value, i) => {
    const pattern = stringAt(value, `${field}[${i}]`);
    globToRegex(pattern, `${field}[${i}]`);
    return pattern;
  });
}

/** A JSON object at `field`, or a 400 naming it. */
export function objectAt(json: JsonValue | undefined, field: string): JsonObject {
  if (json === undefined || json === null) throw invalidArgument(field, "is required");
  if (typeof json !== "object" || Array.isArray(json)) throw invalidArgument(field, "must be an object");
  return json;
}

function optionalObject(json: JsonValue | undefined, field: string): JsonObject | null {
  return json === undefined || json === null ? null : objectAt(json, field);
}

function arrayAt(json: JsonValue | undefined, field: string): JsonValue[] {
  if (json === undefined || json === null) throw invalidArgument(field, "is required");
  if (!Array.isArray(json)) throw invalidArgument(field, "must be a list");
  return json;
}

/** A non-empty string at `field`, or a 400 naming it. */
export function stringAt(json: JsonValue | undefined, field: string): string {
  if (json === undefined || json === null || json === "") throw invalidArgument(field, "is required");
  if (typeof json !== "string") throw invalidArgument(field, "must be a string");
  return json;
}

function optionalString(json: JsonValue | undefined, field: string): string | null {
  return json === undefined || json === null ? null : stringAt(json, field);
}

function integerAt(json: JsonValue, field: string): number {
  if (typeof json !== "number" || !Number.isSafeInteger(json)) throw invalidArgument(field, "must be an integer");
  return json;
}
