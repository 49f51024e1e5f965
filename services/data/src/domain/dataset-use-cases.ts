import { create, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { applyCustomFieldChanges, newId, notFound, parseQueryText, TOPICS, type CustomFieldChanges, type KeysetPageRows, type MetadataChanges, type QuerySpecInput, type SearchPlan, type UnitOfWork } from "@hangar/shared";
import { DatasetChange, DatasetChangedSchema } from "@hangar/shared/proto/events";
import { datasetToProto } from "./dataset-proto";
import type { Actor, OrgActor } from "./actor";
import { applyMetadataChangeset, checkTags, type DatasetRecord } from "./datasets";
import { checkRelationEdit, newRelations, permissionsOf, relationObject, type PermissionTuple, type Permissions } from "./relations";
import { planDatasetSearch, whereOf } from "./dataset-search";
import type { DataRepositories } from "./repositories";

/** What the dataset use cases reach: datasets, the deletions of what owns files, and the outbox. */
export type DatasetRepositories = Pick<DataRepositories, "datasets" | "associationDeletions" | "events">;

/** The fields of a new dataset as a request gives them; `fieldPrefix` (e.g. `create_request.`) prefixes the fields errors name. */
export interface NewDataset {
  name?: string | undefined;
  description?: string | undefined;
  deviceId?: string | undefined;
  metadata?: JsonObject | undefined;
  customFields?: JsonObject | undefined;
  tags: readonly string[];
  fieldPrefix?: string;
}

/** The changes of an update: an absent field stays, null clears it. */
export interface DatasetUpdate {
  name?: string | null | undefined;
  description?: string | null | undefined;
  deviceId?: string | null | undefined;
  metadataChangeset?: MetadataChanges | undefined;
  customFieldsChangeset?: CustomFieldChanges | undefined;
}

/** Creates a dataset in the actor's org and records its `created` event in the same transaction. */
export async function createDataset(uow: UnitOfWork<DatasetRepositories>, actor: OrgActor, input: NewDataset): Promise<DatasetRecord> {
  const record = newDataset(actor, input);
  await uow.transaction(async (r) => {
    await r.datasets.insert(record);
    recordDatasetChanged(r, record, DatasetChange.CREATED, record.createdBy);
  });
  return record;
}

/** A dataset the actor can read; a 404 otherwise. Untracked: the hot path of get_dataset. */
export async function getDataset(uow: UnitOfWork<DatasetRepositories>, actor: Actor, datasetId: string): Promise<DatasetRecord> {
  const record = actor.orgId ? await uow.repositories().datasets.read(actor.orgId, datasetId) : null;
  if (!record) throw notFound("dataset", datasetId);
  return record;
}

/**
 * Applies an update and records an `updated` event. The dataset is locked for the transaction:
 * two updates at once would each apply their changeset to the same read, and the later write
 * would drop the earlier one's changes.
 */
export function updateDataset(uow: UnitOfWork<DatasetRepositories>, actor: Actor, datasetId: string, change: DatasetUpdate): Promise<DatasetRecord> {
  return uow.transaction(async (r) => {
    const record = await findDataset(r, actor, datasetId, true);
    if (change.name !== undefined) record.name = change.name;
    if (change.description !== undefined) record.description = change.description;
    if (change.deviceId !== undefined) record.deviceId = change.deviceId;
    if (change.metadataChangeset) applyMetadataChangeset(record, change.metadataChangeset);
    if (change.customFieldsChangeset) {
      record.customFields = applyCustomFieldChanges(record.customFields, change.customFieldsChangeset, "custom_fields_changeset");
    }
    record.modified = new Date();
    record.modifiedBy = actor.subject;
    record.serviceRecordVersion += 1;
    recordDatasetChanged(r, record, DatasetChange.UPDATED, actor.subject);
    return record;
  });
}

/**
 * Deletes a dataset with its permission tuples and records a `deleted` event; its files vanish
 * from every read on commit and are left to the background cleanup (see association-cleanup).
 * Locked: of two deletes at once, the second waits and then finds nothing (404).
 */
export async function deleteDataset(uow: UnitOfWork<DatasetRepositories>, actor: Actor, datasetId: string): Promise<void> {
  await uow.transaction(async (r) => {
    const record = await findDataset(r, actor, datasetId, true);
    r.datasets.remove(record);
    await r.datasets.removeRelations(record.datasetId);
    await r.associationDeletions.retire({ associationId: record.datasetId, associationType: "dataset", orgId: record.orgId, requestedBy: actor.subject });
    recordDatasetChanged(r, record, DatasetChange.DELETED, actor.subject);
  });
}

/** The permissions of a dataset the actor can read. */
export async function getDatasetPermissions(uow: UnitOfWork<DatasetRepositories>, actor: Actor, datasetId: string): Promise<Permissions> {
  const r = uow.repositories();
  return datasetPermissions(r, await findDataset(r, actor, datasetId));
}

/**
 * Adds and removes stored permission tuples (removals first; a tuple already present is not
 * added twice), all or nothing: every tuple is checked before anything changes.
 */
export async function updateDatasetPermissions(
  uow: UnitOfWork<DatasetRepositories>,
  actor: Actor,
  datasetId: string,
  edit: { add: readonly PermissionTuple[]; remove: readonly PermissionTuple[] },
): Promise<Permissions> {
  const record = await findDataset(uow.repositories(), actor, datasetId);
  const { add, remove } = checkRelationEdit(edit, relationObject("dataset", record.datasetId));
  await uow.transaction(async (r) => {
    for (const tuple of remove) await r.datasets.removeRelation({ datasetId: record.datasetId, ...tuple });
    for (const tuple of newRelations(add, await r.datasets.relations(record.datasetId))) r.datasets.addRelation({ datasetId: record.datasetId, ...tuple });
  });
  return datasetPermissions(uow.repositories(), record);
}

/**
 * The oldest dataset of the org matching a query (`text`, from the request field `field`), or a
 * new one created from `input` when none does. Creations matching the same parsed query
 * serialize, so spellings that differ only in whitespace or quotes cannot both create.
 */
export async function createDatasetIfNotExists(
  uow: UnitOfWork<DatasetRepositories>,
  actor: OrgActor,
  query: { text: string; field: string },
  input: NewDataset,
): Promise<{ record: DatasetRecord; created: boolean }> {
  const condition = parseQueryText(query.text, query.field);
  const where = whereOf(condition, query.field);
  const candidate = newDataset(actor, input);
  return uow.transaction(async (r) => {
    await r.datasets.lockQuery(actor.orgId, JSON.stringify(condition));
    const existing = await r.datasets.firstMatch(actor.orgId, where);
    if (existing) return { record: existing, created: false };
    await r.datasets.insert(candidate);
    recordDatasetChanged(r, candidate, DatasetChange.CREATED, candidate.createdBy);
    return { record: candidate, created: true };
  });
}

async function findDataset(r: DatasetRepositories, actor: Actor, datasetId: string, lock = false): Promise<DatasetRecord> {
  const record = actor.orgId ? await r.datasets.find(actor.orgId, datasetId, lock) : null;
  if (!record) throw notFound("dataset", datasetId);
  return record;
}

function newDataset(actor: OrgActor, input: NewDataset): DatasetRecord {
  const now = new Date();
  return {
    datasetId: newId("ds"),
    orgId: actor.orgId,
    name: input.name ?? null,
    description: input.description ?? null,
    deviceId: input.deviceId ?? null,
    metadata: input.metadata ?? {},
    customFields: input.customFields ?? {},
    tags: checkTags(input.tags, `${input.fieldPrefix ?? ""}tags`),
    created: now,
    createdBy: actor.subject,
    modified: now,
    modifiedBy: actor.subject,
    serviceRecordVersion: 1,
  };
}

function recordDatasetChanged(r: DatasetRepositories, record: DatasetRecord, change: DatasetChange, actor: string): void {
  const payload = toBinary(
    DatasetChangedSchema,
    create(DatasetChangedSchema, { orgId: record.orgId, datasetId: record.datasetId, change, occurred: timestampNow(), actor, ...(change === DatasetChange.DELETED ? {} : { dataset: datasetToProto(record) }) }),
  );
  r.events.record({ topic: TOPICS.datasetChanged, key: record.datasetId, payload });
}

async function datasetPermissions(r: DatasetRepositories, record: DatasetRecord): Promise<Permissions> {
  return permissionsOf(relationObject("dataset", record.datasetId), record, await r.datasets.relations(record.datasetId));
}

/**
 * One page of the datasets matching a QuerySpecification in the actor's org, with the plan that
 * makes its next token; none when the actor may read no org. The spec is checked either way.
 */
export async function searchDatasets(
  uow: UnitOfWork<DatasetRepositories>,
  actor: Actor,
  spec: QuerySpecInput,
): Promise<{ plan: SearchPlan; page: KeysetPageRows<DatasetRecord> & { total: number | undefined } } | undefined> {
  const plan = planDatasetSearch(spec);
  if (!actor.orgId) return undefined;
  return { plan, page: await uow.repositories().datasets.search(actor.orgId, plan) };
}

/** The distinct top-level metadata keys of the datasets the actor can read, sorted. */
export async function datasetMetadataKeys(uow: UnitOfWork<DatasetRepositories>, actor: Actor): Promise<string[]> {
  return actor.orgId ? uow.repositories().datasets.metadataKeys(actor.orgId) : [];
}
