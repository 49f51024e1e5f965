import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { invalidArgument, newId, quoteValue } from "@hangar/shared";
import { triggerRecordOf } from "./fire-triggers";
import { describeEvent, envelopeOf, isPlatformEventType, PLATFORM_EVENT_TYPES, type PlatformEvent, type PlatformEventType } from "./platform-events";
import type { TriggerRecord } from "./records";
import { nextTick } from "./cron-schedule";
import { objectAt, sourceEventTypes, stringAt } from "./trigger-definition";
import { runGates, type GateReaders } from "./trigger-gates";
import type { TriggerNamespace } from "./trigger-namespace";
import { scheduleEvent, scheduleNamespace } from "./trigger-scheduler";
import { storedSource } from "./trigger-view";

/** The records an event's namespace dereferences, as the data service answers in the event's org (null: gone). */
export interface EntityReader {
  dataset(orgId: string, datasetId: string): Promise<JsonObject | null>;
  file(orgId: string, fileId: string): Promise<JsonObject | null>;
}

/** The namespace of a (non-schedule) event: its envelope and the records its payload names. */
export async function eventNamespace(event: PlatformEvent, reader: EntityReader): Promise<TriggerNamespace> {
  const { data } = event;
  const [dataset, file] = await Promise.all([
    event.dataset ?? (typeof data.dataset_id === "string" ? reader.dataset(event.orgId, data.dataset_id) : null),
    typeof data.file_id === "string" ? reader.file(event.orgId, data.file_id) : null,
  ]);
  const records: Record<string, JsonObject | null> = { envelope: envelopeOf(event), dataset, file, changed: {}, tag: { added: [], removed: [] } };
  if (typeof data.transaction_id === "string") records.upload = { transaction_id: data.transaction_id };
  return { records, defaultRoot: describeEvent(event.type).defaultRoot };
}

/** A dry run's request: a full event, or one entity reference (plus an optional event type), or a schedule minute. */
export interface DryRunInput {
  event?: JsonValue | undefined;
  datasetId?: string | undefined;
  fileId?: string | undefined;
  invocationId?: string | undefined;
  eventId?: string | undefined;
  eventType?: string | undefined;
  scheduledFor?: Date | undefined;
}

/**
 * Answers "would this trigger fire?" for a sample event (the SDK's TriggerDryRunResponse): the
 * gates' trace, with the dispatches already made for the event's token. It dispatches and writes
 * nothing.
 */
export async function dryRun(trigger: TriggerRecord, input: DryRunInput, reader: EntityReader, readers: GateReaders, now: Date): Promise<JsonObject> {
  const source = storedSource(trigger);
  let event: PlatformEvent;
  let namespace: TriggerNamespace;
  if (source.type === "schedule" && input.event === undefined) {
    const tick = input.scheduledFor ?? nextTick(source.schedule, now) ?? now;
    event = scheduleEvent(trigger, tick);
    namespace = scheduleNamespace(trigger, event, source.cron, tick);
  } else {
    event = sampleEvent(trigger, input, sourceEventTypes(source)[0]!);
    namespace = await eventNamespace(event, reader);
    namespace.records.trigger = triggerRecordOf(trigger);
  }
  const plan = await runGates(trigger, event, namespace, readers);
  return { trigger_id: trigger.triggerId, event_type: event.type, would_fire: plan.wouldFire, verdict: plan.verdict, gates: plan.gates };
}

function sampleEvent(trigger: TriggerRecord, input: DryRunInput, subscribed: PlatformEventType): PlatformEvent {
  const refs = (["datasetId", "fileId", "invocationId", "eventId"] as const).filter((key) => input[key] !== undefined);
  if (refs.length > 1) throw invalidArgument("dataset_id", "give at most one of dataset_id, file_id, invocation_id, event_id");
  if (input.event !== undefined) return parseEvent(input.event, trigger.orgId);
  const type = input.eventType === undefined ? subscribed : eventTypeOf(input.eventType, "event_type");
  const data: JsonObject = {};
  if (input.datasetId !== undefined) data.dataset_id = input.datasetId;
  if (input.fileId !== undefined) data.file_id = input.fileId;
  if (input.invocationId !== undefined) data.invocation_id = input.invocationId;
  if (input.eventId !== undefined) data.event_id = input.eventId;
  return { id: newId("dryrun"), type, time: new Date(), orgId: trigger.orgId, data };
}

function parseEvent(json: JsonValue, orgId: string): PlatformEvent {
  const event = objectAt(json, "event");
  const time = event.time === undefined || event.time === null ? new Date() : new Date(stringAt(event.time, "event.time"));
  if (Number.isNaN(time.getTime())) throw invalidArgument("event.time", "must be an ISO 8601 date-time");
  return { id: stringAt(event.id, "event.id"), type: eventTypeOf(event.type, "event.type"), time, orgId, data: objectAt(event.data, "event.data") };
}

function eventTypeOf(value: JsonValue | undefined, field: string): PlatformEventType {
  const type = stringAt(value, field);
  if (!isPlatformEventType(type)) throw invalidArgument(field, `is not a platform event type: ${quoteValue(type)}`);
  return type;
}

/** A realistic sample of every event type (the SDK's PlatformEventSample): envelope, namespace and the paths a condition may name. */
export function platformEventSamples(orgId: string): JsonObject {
  return Object.fromEntries(PLATFORM_EVENT_TYPES.map((type) => [type, sampleOf(type, orgId)]));
}

function sampleOf(type: PlatformEventType, orgId: string): JsonObject {
  const data = SAMPLE_PAYLOADS[type];
  const event: PlatformEvent = { id: `ev_sample_${type.replace(/\W/g, "_")}`, type, time: new Date("2026-01-01T00:00:00Z"), orgId, data };
  const envelope = envelopeOf(event);
  const namespace: Record<string, JsonObject> = { envelope };
  for (const root of describeEvent(type).roots) namespace[root] = SAMPLE_RECORDS[root] ?? {};
  const paths = Object.entries(namespace).flatMap(([root, record]) => Object.keys(record).map((key) => `${root}.${key}`));
  return { event_type: type, event: { ...envelope }, namespace, paths };
}

const DATASET_SAMPLE: JsonObject = { dataset_id: "ds_sample", org_id: "og_sample", name: "field-test", description: null, metadata: { robot: "rover-1" }, tags: ["field"], created_by: "user@example.com" };
const FILE_SAMPLE: JsonObject = { file_id: "fl_sample", association_id: "ds_sample", relative_path: "logs/run.mcap", size: 1024, metadata: {}, tags: [] };

const SAMPLE_RECORDS: Record<string, JsonObject> = {
  dataset: DATASET_SAMPLE,
  file: FILE_SAMPLE,
  upload: { transaction_id: "tx_sample" },
  changed: { robot: "rover-2" },
  tag: { added: ["ready"], removed: [] },
  invocation: { invocation_id: "iv_sample", status: "Completed" },
  action: { name: "process-logs", org_id: "og_sample" },
  session: { session_id: "se_sample" },
  event: { event_id: "ev_sample", name: "anomaly" },
  schedule: { scheduled_for: "2026-01-01T00:00:00.000Z", cron: "0 * * * *" },
};

const SAMPLE_PAYLOADS: Record<PlatformEventType, JsonObject> = {
  "file.uploaded": { dataset_id: "ds_sample", file_id: "fl_sample", transaction_id: "tx_sample" },
  "dataset.upload_completed": { dataset_id: "ds_sample", transaction_id: "tx_sample" },
  "file.ingested": { dataset_id: "ds_sample", file_id: "fl_sample" },
  "file.metadata_updated": { dataset_id: "ds_sample", file_id: "fl_sample", changeset: {} },
  "dataset.metadata_updated": { dataset_id: "ds_sample", changeset: {} },
  "dataset.created": { dataset_id: "ds_sample" },
  "dataset.tag_added": { dataset_id: "ds_sample", tags_added: ["ready"] },
  "invocation.completed": { invocation_id: "iv_sample", action_name: "process-logs", action_owner_id: "og_sample", status: "Completed" },
  "invocation.failed": { invocation_id: "iv_sample", action_name: "process-logs", action_owner_id: "og_sample", status: "Failed" },
  "session.ingested": { session_id: "se_sample", ingestion_number: 1 },
  "event.created": { event_id: "ev_sample" },
  "schedule.fired": { trigger_id: "tr_sample", scheduled_for: "2026-01-01T00:00:00.000Z" },
};
