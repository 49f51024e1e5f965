import type { JsonObject } from "@bufbuild/protobuf";

/** The twelve platform event types of the 0.62 trigger model (the client SDK's PlatformEventType). */
export const PLATFORM_EVENT_TYPES = [
  "file.uploaded",
  "dataset.upload_completed",
  "file.ingested",
  "file.metadata_updated",
  "dataset.metadata_updated",
  "dataset.created",
  "dataset.tag_added",
  "invocation.completed",
  "invocation.failed",
  "session.ingested",
  "event.created",
  "schedule.fired",
] as const;

/** One of PLATFORM_EVENT_TYPES. */
export type PlatformEventType = (typeof PLATFORM_EVENT_TYPES)[number];

/** What a trigger fires at most once per (the client SDK's OncePer). */
export const ONCE_PER = ["occurrence", "file", "dataset", "invocation", "event"] as const;

/** One of ONCE_PER. */
export type OncePer = (typeof ONCE_PER)[number];

/** What the catalog says about an event type (the SDK's PlatformEventDescriptor). */
export interface EventDescriptor {
  /** The namespace roots a condition or placeholder of a trigger on this event may name. */
  roots: readonly string[];
  /** The root an unqualified condition field reads. */
  defaultRoot: string;
  /** The OncePer values legal for the type, each with the payload key it de-duplicates on. */
  oncePer: Partial<Record<OncePer, string>>;
  /** The kind of entity the event is about (its subject URI's type). */
  subjectType: "file" | "dataset" | "invocation" | "session" | "event" | "trigger";
  /** False for `schedule.fired`: a trigger fires on a schedule by declaring a Schedule source. */
  subscribable: boolean;
  /**
   * False for the types this platform does not emit yet: triggers may subscribe to them (their
   * definitions are valid), and they fire once a source exists.
   */
  emitted: boolean;
}

// "id" de-duplicates on the event itself.
const EVENT_CATALOG: Record<PlatformEventType, EventDescriptor> = {
  "file.uploaded": fileEvent(["file", "dataset"]),
  "dataset.upload_completed": datasetEvent(["dataset", "upload"], { occurrence: "id", dataset: "dataset_id" }),
  "file.ingested": fileEvent(["file", "dataset"]),
  "file.metadata_updated": fileEvent(["file", "dataset", "changed", "tag"]),
  "dataset.metadata_updated": datasetEvent(["dataset", "changed", "tag"], { occurrence: "id", dataset: "dataset_id" }),
  "dataset.created": datasetEvent(["dataset"], { occurrence: "id", dataset: "dataset_id" }),
  "dataset.tag_added": { ...datasetEvent(["dataset", "tag"], { occurrence: "id" }), emitted: false },
  "invocation.completed": invocationEvent(),
  "invocation.failed": invocationEvent(),
  "session.ingested": { roots: ["session"], defaultRoot: "session", oncePer: { occurrence: "id" }, subjectType: "session", subscribable: true, emitted: false },
  "event.created": { roots: ["event"], defaultRoot: "event", oncePer: { occurrence: "id", event: "event_id" }, subjectType: "event", subscribable: true, emitted: false },
  "schedule.fired": { roots: ["schedule"], defaultRoot: "schedule", oncePer: { occurrence: "id" }, subjectType: "trigger", subscribable: false, emitted: true },
};

function fileEvent(roots: string[]): EventDescriptor {
  return { roots, defaultRoot: "dataset", oncePer: { occurrence: "id", file: "file_id", dataset: "dataset_id" }, subjectType: "file", subscribable: true, emitted: true };
}

function datasetEvent(roots: string[], oncePer: EventDescriptor["oncePer"]): EventDescriptor {
  return { roots, defaultRoot: "dataset", oncePer, subjectType: "dataset", subscribable: true, emitted: true };
}

function invocationEvent(): EventDescriptor {
  return { roots: ["invocation", "action"], defaultRoot: "invocation", oncePer: { occurrence: "id", invocation: "invocation_id" }, subjectType: "invocation", subscribable: true, emitted: false };
}

/** Roots every trigger may name whatever it fires on: the event envelope and the trigger itself. */
export const RESERVED_ROOTS: readonly string[] = ["envelope", "trigger"];

/** The catalog entry of an event type. */
export function describeEvent(type: PlatformEventType): EventDescriptor {
  return EVENT_CATALOG[type];
}

/** True when `value` names one of the twelve event types. */
export function isPlatformEventType(value: string): value is PlatformEventType {
  return (PLATFORM_EVENT_TYPES as readonly string[]).includes(value);
}

/** The event types this platform does not emit yet (README: "Triggers"). */
export function unemittedEventTypes(): PlatformEventType[] {
  return PLATFORM_EVENT_TYPES.filter((type) => !EVENT_CATALOG[type].emitted);
}

/** A platform event as triggers see it (the client SDK's PlatformEvent). */
export interface PlatformEvent {
  id: string;
  type: PlatformEventType;
  time: Date;
  orgId: string;
  /** The per-type payload (`dataset_id`, `file_id`, `transaction_id`, `scheduled_for`, ...). */
  data: JsonObject;
  /**
   * The dataset as the event left it, when the event carries it: triggers judge that, not the
   * dataset read later (a later change may have replaced it by then).
   */
  dataset?: JsonObject;
}

/** The roboto:// URI of what an event is about: `roboto://<org>/<type>/<id>`. */
export function eventSubject(event: PlatformEvent): string {
  const kind = EVENT_CATALOG[event.type].subjectType;
  const id = event.data[`${kind}_id`] ?? event.data.trigger_id ?? event.id;
  return `roboto://${event.orgId}/${kind}/${String(id)}`;
}

/**
 * The key a trigger fires at most once per: `<type>|<once_per>:<projected id>`, the SDK's
 * `idempotency_token`. Undefined when the type does not support `oncePer`.
 */
export function idempotencyToken(event: PlatformEvent, oncePer: OncePer): string | undefined {
  const key = EVENT_CATALOG[event.type].oncePer[oncePer];
  if (key === undefined) return undefined;
  const projected = key === "id" ? event.id : event.data[key];
  return `${event.type}|${oncePer}:${String(projected)}`;
}

/** The event's envelope as the `envelope` namespace root shows it. */
export function envelopeOf(event: PlatformEvent): JsonObject {
  return { id: event.id, source: `/v1/orgs/${event.orgId}`, subject: eventSubject(event), type: event.type, time: event.time.toISOString(), org_id: event.orgId, data: event.data };
}
