import {
  createFieldCatalog,
  invalidArgument,
  outerJoined,
  quoteValue,
  rawSql,
  splitFieldPath,
  sql,
  type ColumnRef,
  type FieldCatalog,
  type FieldRef,
  type JsonRef,
  type QueryNode,
  type Relation,
  type SqlFragment,
} from "@hangar/shared";
import { collectionCatalog } from "./collection-search";
import { datasetCatalog } from "./dataset-search";
import { fileCatalog } from "./file-search";

/** What a saved query may search: every `target` value of overview.md. */
export const SEARCHABLE_TARGETS = ["collections", "datasets", "devices", "files", "sessions", "topics", "topic_message_paths", "events"] as const;

/** One of SEARCHABLE_TARGETS. */
export type QueryTargetName = (typeof SEARCHABLE_TARGETS)[number];

/** How one target is searched: its fields, the key that breaks sort ties, and what a term matches. */
export interface QueryTarget {
  readonly catalog: FieldCatalog;
  readonly tieBreaker: string;
  /**
   * What a free-text term matches, joined by OR: text fields that contain it (CONTAINS, case-insensitive,
   * served by trigram indexes) and the id that equals it. Tags are left to `tags CONTAINS`: the
   * planner has no estimate for a tag it has not sampled (0.5% of the table), which would make it
   * walk the whole org in date order for a term that matches a handful of records.
   */
  readonly termFields: readonly string[];
  readonly termId: string;
}

// The message path's own fields, over `message_paths mp`.
export const messagePathColumns = createFieldCatalog({
  prefixes: ["msgpath", "message_path"],
  columns: {
    message_path_id: { sql: `"mp"."message_path_id"`, type: "text", notNull: true },
    id: { sql: `"mp"."message_path_id"`, type: "text", notNull: true },
    message_path: { sql: `"mp"."message_path"`, type: "text", notNull: true },
    path: { sql: `"mp"."message_path"`, type: "text", notNull: true },
    source_path: { sql: `"mp"."source_path"`, type: "text", notNull: true },
    data_type: { sql: `"mp"."data_type"`, type: "text", notNull: true },
    canonical_data_type: { sql: `"mp"."canonical_data_type"`, type: "text", notNull: true },
    topic_id: { sql: `"mp"."topic_id"`, type: "text", notNull: true },
    created: { sql: `"mp"."created"`, type: "timestamp", notNull: true },
    created_by: { sql: `"mp"."created_by"`, type: "text", notNull: true },
    modified: { sql: `"mp"."modified"`, type: "timestamp", notNull: true },
    modified_by: { sql: `"mp"."modified_by"`, type: "text", notNull: true },
  },
  jsonColumns: { metadata: `"mp"."metadata"` },
});

// The topic's own fields, over `topics t`.
export const topicColumns = createFieldCatalog({
  prefixes: ["topic"],
  columns: {
    topic_id: { sql: `"t"."topic_id"`, type: "text", notNull: true },
    id: { sql: `"t"."topic_id"`, type: "text", notNull: true },
    topic_name: { sql: `"t"."topic_name"`, type: "text", notNull: true },
    name: { sql: `"t"."topic_name"`, type: "text", notNull: true },
    schema_name: { sql: `"t"."schema_name"`, type: "text" },
    schema_checksum: { sql: `"t"."schema_checksum"`, type: "text" },
    association_id: { sql: `"t"."association_id"`, type: "text", notNull: true },
    association_type: { sql: `"t"."association_type"`, type: "text", notNull: true },
    start_time: { sql: `"t"."start_time"`, type: "number" },
    end_time: { sql: `"t"."end_time"`, type: "number" },
    message_count: { sql: `"t"."message_count"`, type: "number" },
    created: { sql: `"t"."created"`, type: "timestamp", notNull: true },
    created_by: { sql: `"t"."created_by"`, type: "text", notNull: true },
    modified: { sql: `"t"."modified"`, type: "timestamp", notNull: true },
    modified_by: { sql: `"t"."modified_by"`, type: "text", notNull: true },
  },
  jsonColumns: { metadata: `"t"."metadata"` },
});

// The event's own fields, over `robot_events e`.
export const eventColumns = createFieldCatalog({
  prefixes: ["event"],
  columns: {
    event_id: { sql: `"e"."event_id"`, type: "text", notNull: true },
    id: { sql: `"e"."event_id"`, type: "text", notNull: true },
    name: { sql: `"e"."name"`, type: "text", notNull: true },
    description: { sql: `"e"."description"`, type: "text" },
    start_time: { sql: `"e"."start_time"`, type: "number", notNull: true },
    end_time: { sql: `"e"."end_time"`, type: "number", notNull: true },
    tags: { sql: `"e"."tags"`, type: "text[]", notNull: true },
    created: { sql: `"e"."created"`, type: "timestamp", notNull: true },
    created_by: { sql: `"e"."created_by"`, type: "text", notNull: true },
    modified: { sql: `"e"."modified"`, type: "timestamp", notNull: true },
    modified_by: { sql: `"e"."modified_by"`, type: "text", notNull: true },
  },
  jsonColumns: { metadata: `"e"."metadata"`, custom_fields: `"e"."custom_fields"` },
});

// The device's own fields, over `devices dv`.
export const deviceColumns = createFieldCatalog({
  prefixes: ["device"],
  columns: {
    device_id: { sql: `"dv"."device_id"`, type: "text", notNull: true },
    universal_device_id: { sql: `"dv"."universal_device_id"`, type: "text", notNull: true },
    id: { sql: `"dv"."universal_device_id"`, type: "text", notNull: true },
    device_type_id: { sql: `"dv"."device_type_id"`, type: "text" },
    tags: { sql: `"dv"."tags"`, type: "text[]", notNull: true },
    created: { sql: `"dv"."created"`, type: "timestamp", notNull: true },
    created_by: { sql: `"dv"."created_by"`, type: "text", notNull: true },
    modified: { sql: `"dv"."modified"`, type: "timestamp", notNull: true },
    modified_by: { sql: `"dv"."modified_by"`, type: "text", notNull: true },
  },
  jsonColumns: { metadata: `"dv"."metadata"`, custom_fields: `"dv"."custom_fields"` },
});

// The session's own fields, over `sessions s`.
export const sessionColumns = createFieldCatalog({
  prefixes: ["session"],
  columns: {
    session_id: { sql: `"s"."session_id"`, type: "text", notNull: true },
    id: { sql: `"s"."session_id"`, type: "text", notNull: true },
    name: { sql: `"s"."name"`, type: "text" },
    description: { sql: `"s"."description"`, type: "text" },
    status: { sql: `"s"."status"`, type: "text", notNull: true },
    tags: { sql: `"s"."tags"`, type: "text[]", notNull: true },
    min_timestamp_ns: { sql: `"s"."min_timestamp_ns"`, type: "number" },
    max_timestamp_ns: { sql: `"s"."max_timestamp_ns"`, type: "number" },
    ingestion_count: { sql: `"s"."ingestion_count"`, type: "number", notNull: true },
    completed_at: { sql: `"s"."completed_at"`, type: "timestamp" },
    created: { sql: `"s"."created"`, type: "timestamp", notNull: true },
    created_by: { sql: `"s"."created_by"`, type: "text", notNull: true },
    modified: { sql: `"s"."modified"`, type: "timestamp", notNull: true },
    modified_by: { sql: `"s"."modified_by"`, type: "text", notNull: true },
  },
  jsonColumns: { metadata: `"s"."metadata"`, custom_fields: `"s"."custom_fields"` },
});

/** A relation whose rows are tested by `exists(test)`; see `Relation` in the shared engine. */
function relation(key: string, exists: (test: SqlFragment) => SqlFragment): Relation {
  return { key, exists };
}

function related(rel: Relation, ref: FieldRef | undefined): FieldRef | undefined {
  return ref === undefined || ref.kind === "related" ? ref : { kind: "related", relation: rel, ref };
}

// The topics of a dataset are its own and its files'; each topic reaches its message paths.
const datasetTopics = relation("topic", (test) =>
  sql`exists (select 1 from topics t left join fs_nodes tf on tf.node_id = t.association_id left join message_paths mp on mp.topic_id = t.topic_id
    where t.org_id = "d"."org_id" and coalesce(tf.association_id, t.association_id) = "d"."dataset_id" and (${test}))`,
);
const datasetFiles = relation("file", (test) =>
  sql`exists (select 1 from fs_nodes f where f.association_id = "d"."dataset_id" and f.org_id = "d"."org_id" and f.status = 'available' and f.fs_type = 'file' and (${test}))`,
);
const fileTopics = relation("topic", (test) =>
  sql`exists (select 1 from topics t left join message_paths mp on mp.topic_id = t.topic_id where t.org_id = "f"."org_id" and t.association_id = "f"."node_id" and (${test}))`,
);
const topicPaths = relation("msgpath", (test) => sql`exists (select 1 from message_paths mp where mp.topic_id = "t"."topic_id" and (${test}))`);
const eventDatasets = relation("dataset", (test) =>
  sql`exists (select 1 from event_associations ea join datasets d on d.dataset_id = ea.dataset_id where ea.event_id = "e"."event_id" and (${test}))`,
);

const sessionDevices = relation("device", (test) =>
  sql`exists (select 1 from session_devices sd join devices dv on dv.universal_device_id = sd.universal_device_id where sd.session_id = "s"."session_id" and (${test}))`,
);
const deviceSessions = relation("session", (test) =>
  sql`exists (select 1 from session_devices sd join sessions s on s.session_id = sd.session_id where sd.universal_device_id = "dv"."universal_device_id" and (${test}))`,
);

const BRACKET = /^msgpaths\[([^\[\]]+)\]$/;

/**
 * `msgpaths[cpuload.load].max`: a message path of the topic with that path whose `max` (a column
 * of message paths, else a metadata key, where ingestion keeps statistics) passes the test.
 */
function bracketedPath(head: string, rest: readonly string[], topicAlias: "t"): FieldRef | undefined {
  const match = BRACKET.exec(head);
  if (!match || rest.length === 0) return undefined;
  const path = match[1]!;
  const rel = relation(`msgpath[${path}]`, (test) =>
    sql`exists (select 1 from message_paths mp where mp.topic_id = ${rawSql(`"${topicAlias}"."topic_id"`)} and mp.message_path = ${path} and (${test}))`,
  );
  const field = rest.join(".");
  return related(rel, messagePathColumns.resolve(field) ?? messagePathColumns.resolve(`metadata.${field}`));
}

/** Resolves `first.rest` through the resource qualifiers a catalog of the target knows. */
function qualified(field: string, routes: Readonly<Record<string, (rest: string) => FieldRef | undefined>>): FieldRef | undefined {
  const [first = "", ...rest] = splitFieldPath(field);
  const route = Object.hasOwn(routes, first) ? routes[first] : undefined;
  return route && rest.length > 0 ? route(rest.join(".")) : undefined;
}

const topicOrPath = (rest: string) => related(datasetTopics, topicColumns.resolve(rest));
const pathOfTopic = (rest: string) => related(datasetTopics, messagePathColumns.resolve(rest));

const datasetTarget: FieldCatalog = {
  resolve: (field) =>
    datasetCatalog.resolve(field) ??
    qualified(field, {
      topic: topicOrPath,
      topics: topicOrPath,
      msgpath: pathOfTopic,
      msgpaths: pathOfTopic,
      file: (rest) => related(datasetFiles, fileCatalog.resolve(rest)),
      dataset: (rest) => datasetTarget.resolve(rest),
    }),
};

const fileTarget: FieldCatalog = {
  resolve: (field) =>
    qualified(field, {
      topic: (rest) => related(fileTopics, topicColumns.resolve(rest)),
      msgpath: (rest) => related(fileTopics, messagePathColumns.resolve(rest)),
      file: (rest) => fileTarget.resolve(rest),
    }) ?? fileCatalog.resolve(field),
};

// A topic's or message path's dataset and file are left-joined (a topic of a device has neither).
const outerDatasets = outerJoined(datasetCatalog);
const outerFiles = outerJoined(fileCatalog);

// Topics are searched over `topics t` with their file `f` and dataset `d` left-joined (see the store).
const topicTarget: FieldCatalog = {
  resolve(field) {
    const [head = "", ...rest] = splitFieldPath(field);
    return (
      bracketedPath(head, rest, "t") ??
      topicColumns.resolve(field) ??
      qualified(field, {
        msgpath: (r) => related(topicPaths, messagePathColumns.resolve(r)),
        msgpaths: (r) => related(topicPaths, messagePathColumns.resolve(r)),
        dataset: (r) => outerDatasets.resolve(r),
        file: (r) => fileCatalogOwn(r),
        topic: (r) => topicTarget.resolve(r),
      })
    );
  },
};

// Message paths are searched over `message_paths mp` joined to their topic `t`, its file `f` and dataset `d`.
const messagePathTarget: FieldCatalog = {
  resolve: (field) =>
    messagePathColumns.resolve(field) ??
    qualified(field, {
      topic: (r) => topicColumns.resolve(r),
      dataset: (r) => outerDatasets.resolve(r),
      file: (r) => fileCatalogOwn(r),
      msgpath: (r) => messagePathTarget.resolve(r),
    }),
};

const eventTarget: FieldCatalog = {
  resolve: (field) =>
    eventColumns.resolve(field) ?? qualified(field, { dataset: (r) => related(eventDatasets, datasetCatalog.resolve(r)) }),
};

const deviceTarget: FieldCatalog = {
  resolve: (field) =>
    deviceColumns.resolve(field) ?? qualified(field, { session: (r) => related(deviceSessions, sessionColumns.resolve(r)), device: (r) => deviceTarget.resolve(r) }),
};

const sessionTarget: FieldCatalog = {
  resolve: (field) =>
    sessionColumns.resolve(field) ?? qualified(field, { device: (r) => related(sessionDevices, deviceColumns.resolve(r)), session: (r) => sessionTarget.resolve(r) }),
};

// A file's own fields only (its `dataset.` fields are the target's own `dataset.` here), left-joined.
function fileCatalogOwn(field: string): ColumnRef | JsonRef | undefined {
  const ref = splitFieldPath(field)[0] === "dataset" ? undefined : outerFiles.resolve(field);
  return ref?.kind === "related" ? undefined : ref;
}

/** The targets this service searches. */
export const TARGETS: Readonly<Record<QueryTargetName, QueryTarget>> = {
  collections: { catalog: collectionCatalog, tieBreaker: `"c"."collection_id"`, termFields: ["name", "description"], termId: "collection_id" },
  datasets: { catalog: datasetTarget, tieBreaker: `"d"."dataset_id"`, termFields: ["name", "description"], termId: "dataset_id" },
  devices: { catalog: deviceTarget, tieBreaker: `"dv"."universal_device_id"`, termFields: ["device_id"], termId: "universal_device_id" },
  files: { catalog: fileTarget, tieBreaker: `"f"."node_id"`, termFields: ["relative_path", "description"], termId: "file_id" },
  sessions: { catalog: sessionTarget, tieBreaker: `"s"."session_id"`, termFields: ["name", "description"], termId: "session_id" },
  topics: { catalog: topicTarget, tieBreaker: `"t"."topic_id"`, termFields: ["topic_name", "schema_name"], termId: "topic_id" },
  topic_message_paths: { catalog: messagePathTarget, tieBreaker: `"mp"."message_path_id"`, termFields: ["message_path", "data_type"], termId: "message_path_id" },
  events: { catalog: eventTarget, tieBreaker: `"e"."event_id"`, termFields: ["name", "description"], termId: "event_id" },
};

/** Reads a request's `target`: a searchable one, else a 400 naming the field. */
export function targetOf(value: string): QueryTargetName {
  if ((SEARCHABLE_TARGETS as readonly string[]).includes(value)) return value as QueryTargetName;
  throw invalidArgument("target", `must be one of ${SEARCHABLE_TARGETS.join(", ")}, got ${quoteValue(value)}`);
}

/**
 * The condition a free-text term means for a target (none for an empty term): any of its term
 * text fields contains it, ignoring case, or it is the record's id.
 */
export function termCondition(target: QueryTargetName, term: string): QueryNode | undefined {
  const trimmed = term.trim();
  if (trimmed === "") return undefined;
  const { termFields, termId } = TARGETS[target];
  const contains = termFields.map((field) => ({ field, comparator: "CONTAINS" as const, value: trimmed }));
  return { operator: "OR", conditions: [...contains, { field: termId, comparator: "EQUALS", value: trimmed }] };
}
