import type { JsonObject } from "@bufbuild/protobuf";
import { invalidArgument, quoteValue } from "@hangar/shared";
import type { ListedPage, ListedRange } from "./devices";

/** What an event may be about. */
export const EVENT_ASSOCIATION_TYPES = ["dataset", "file", "topic", "message_path"] as const;

/** One of EVENT_ASSOCIATION_TYPES. */
export type EventAssociationType = (typeof EVENT_ASSOCIATION_TYPES)[number];

/** An entity an event is about; `parentDatasetId` is a file's dataset, known when read. */
export interface EventAssociation {
  associationType: EventAssociationType;
  associationId: string;
  associationVersion: bigint | null;
  parentDatasetId?: string | null;
}

/**
 * An event (the API's word; the outbox's events are another thing): a named time range in
 * nanoseconds since the Unix epoch (`endTime` >= `startTime`), about datasets, files, topics
 * and message paths of its org.
 */
export interface RobotEventRecord {
  eventId: string;
  orgId: string;
  name: string;
  description: string | null;
  startTime: bigint;
  endTime: bigint;
  metadata: JsonObject;
  customFields: JsonObject;
  tags: string[];
  displayColor: string | null;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** An event with its associations, in the order they were given. */
export interface RobotEventWithAssociations {
  event: RobotEventRecord;
  associations: EventAssociation[];
}

/** Whose events a listing shows: those about any of some entities, or a dataset's (itself and its files). */
export type RobotEventScope = { orgId: string; associations: readonly EventAssociation[] } | { orgId: string; datasetId: string };

/** The events and their associations. Found events are tracked: changes are written on commit. */
export interface RobotEventRepository {
  /** An event of the org (locked for update when asked, in a transaction). */
  find(orgId: string, eventId: string, lock?: boolean): Promise<RobotEventRecord | null>;
  /** An event's associations, in the order they were given, files with their datasets. */
  associations(eventId: string): Promise<EventAssociation[]>;
  /** Adds an event with its associations. */
  add(record: RobotEventRecord, associations: readonly EventAssociation[]): Promise<void>;
  /** Deletes the org's events among `eventIds` in one statement; ids of no event of the org are ignored. */
  deleteMany(orgId: string, eventIds: readonly string[]): Promise<number>;
  /** One page of the events in scope, newest first, with their associations. */
  list(scope: RobotEventScope, range: ListedRange): Promise<ListedPage<RobotEventWithAssociations>>;
  /** How many events a dataset's listing holds. */
  countOfDataset(datasetId: string): Promise<number>;
}

/**
 * What events may be about, as the org holds it now. Topics and message paths are the topics
 * tables' (not part of the data service yet): until then none exists.
 */
export interface EventTargetRepository {
  /** Which of `datasetIds` are datasets of the org. */
  datasets(orgId: string, datasetIds: readonly string[]): Promise<Set<string>>;
  /** Which of `fileIds` are available files of the org. */
  files(orgId: string, fileIds: readonly string[]): Promise<Set<string>>;
  /** Which of `topicIds` are topics of the org. */
  topics(orgId: string, topicIds: readonly string[]): Promise<Set<string>>;
  /** Which of `messagePathIds` are message paths of the org. */
  messagePaths(orgId: string, messagePathIds: readonly string[]): Promise<Set<string>>;
}

/** Reads an association of a request, its type given or inferred from the id's prefix; errors name `field`. */
export function checkEventAssociation(input: { associationId: string; associationType: string; associationVersion?: bigint | undefined }, field: string): EventAssociation {
  if (input.associationId.length === 0) throw invalidArgument(`${field}.association_id`, "is required");
  const type = input.associationType || typeOfId(input.associationId);
  if (!isAssociationType(type)) {
    throw invalidArgument(`${field}.association_type`, `must be one of ${EVENT_ASSOCIATION_TYPES.join(", ")} (got ${quoteValue(type)})`);
  }
  return { associationType: type, associationId: input.associationId, associationVersion: input.associationVersion ?? null };
}

/** Checks an event's time range: nanoseconds from the epoch (int64 bounds it above), the end not before the start. */
export function checkTimeRange(startTime: bigint, endTime: bigint): void {
  if (startTime < 0n) throw invalidArgument("start_time", "must not be negative (nanoseconds since the Unix epoch)");
  if (endTime < startTime) throw invalidArgument("end_time", "must not be below start_time");
}

function isAssociationType(type: string): type is EventAssociationType {
  return (EVENT_ASSOCIATION_TYPES as readonly string[]).includes(type);
}

const TYPE_OF_PREFIX: Record<string, EventAssociationType> = { ds_: "dataset", fl_: "file", tp_: "topic", mp_: "message_path" };

function typeOfId(id: string): string {
  return TYPE_OF_PREFIX[id.slice(0, 3)] ?? "";
}
