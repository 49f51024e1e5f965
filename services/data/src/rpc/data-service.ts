import { create, toBinary } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  applyCustomFieldChanges,
  applyFieldChanges,
  applyTagChanges,
  badRequest,
  callerOf,
  newId,
  notFound,
  nullableString,
  parseQueryText,
  readableOrg,
  recordEvent,
  requireOrg,
  TOPICS,
  type Principal,
  type ServiceContext,
  fitPage,
} from "@hangar/shared";
import { DataService, type CreateDatasetIfNotExistsRequest, type CreateDatasetRequest, DatasetSchema } from "@hangar/shared/proto/data";
import { DatasetChange, DatasetChangedSchema } from "@hangar/shared/proto/events";
import { checkDatasetName, checkRelationTuple, checkTags, datasetObject, groupPermissions } from "../domain/datasets";
import { planDatasetSearch, whereOf } from "../domain/dataset-search";
import { AssociationDeletionStore } from "../store/association-deletion-store";
import { DatasetStore } from "../store/dataset-store";
import type { DatasetRecord } from "../domain/datasets";
import { datasetToProto } from "./mappers";

type DatasetHandlers = Pick<
  ServiceImpl<typeof DataService>,
  | "createDataset"
  | "getDataset"
  | "updateDataset"
  | "deleteDataset"
  | "getDatasetPermissions"
  | "updateDatasetPermissions"
  | "createDatasetIfNotExists"
  | "queryDatasets"
  | "listDatasetMetadataKeys"
>;

/**
 * Implements the dataset operations of hangar.data.v1.DataService. `deleted` is called after a
 * dataset's deletion commits, to wake the background cleanup of its files.
 */
export function createDatasetHandlers(context: ServiceContext, deleted: () => void): DatasetHandlers {
  const store = () => new DatasetStore(context.orm.em.fork());
  const load = async (s: DatasetStore, caller: Principal, datasetId: string, lock = false): Promise<DatasetRecord> => {
    const orgId = readableOrg(caller);
    const row = orgId ? await s.find(orgId, datasetId, lock) : null;
    if (!row) throw notFound("dataset", datasetId);
    return row;
  };

  return {
    async createDataset(req, ctx) {
      const s = store();
      const row = newDataset(callerOf(ctx), req, "");
      s.add(row);
      emitDatasetChanged(s, row, DatasetChange.CREATED, row.createdBy);
      await s.flush();
      context.eventsWritten();
      return { dataset: datasetToProto(row) };
    },

    async getDataset(req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      const row = orgId ? await DatasetStore.read(context.orm, orgId, req.datasetId) : null;
      if (!row) throw notFound("dataset", req.datasetId);
      return { dataset: datasetToProto(row) };
    },

    async updateDataset(req, ctx) {
      const caller = callerOf(ctx);
      // Locked for the update: two updates at once would each apply their changeset to the same
      // read and the later write would drop the earlier one's changes.
      const row = await store().em.transactional(async (em) => {
        const s = new DatasetStore(em);
        const row = await load(s, caller, req.datasetId, true);
        const name = nullableString(req.name, "name");
        if (name !== undefined) row.name = checkDatasetName(name);
        const description = nullableString(req.description, "description");
        if (description !== undefined) row.description = description;
        const deviceId = nullableString(req.deviceId, "device_id");
        if (deviceId !== undefined) row.deviceId = deviceId;
        if (req.metadataChangeset) {
          // Tags are checked as sent, so an error names the index within put_tags.
          checkTags(req.metadataChangeset.putTags, "metadata_changeset.put_tags");
          row.metadata = applyFieldChanges(row.metadata, req.metadataChangeset, "metadata_changeset");
          row.tags = applyTagChanges(row.tags, req.metadataChangeset);
        }
        if (req.customFieldsChangeset) {
          row.customFields = applyCustomFieldChanges(row.customFields, req.customFieldsChangeset, "custom_fields_changeset");
        }
        row.modified = new Date();
        row.modifiedBy = caller.subject;
        row.serviceRecordVersion += 1;
        emitDatasetChanged(s, row, DatasetChange.UPDATED, caller.subject);
        return row;
      });
      context.eventsWritten();
      return { dataset: datasetToProto(row) };
    },

    async deleteDataset(req, ctx) {
      const caller = callerOf(ctx);
      await store().em.transactional(async (em) => {
        const s = new DatasetStore(em);
        // Locked: of two deletes at once, the second waits and then finds nothing (404).
        const row = await load(s, caller, req.datasetId, true);
        s.remove(row);
        await s.removeRelations(row.datasetId);
        await new AssociationDeletionStore(em).retire({ associationId: row.datasetId, associationType: "dataset", orgId: row.orgId, requestedBy: caller.subject });
        emitDatasetChanged(s, row, DatasetChange.DELETED, caller.subject);
      });
      context.eventsWritten();
      deleted();
      return {};
    },

    async getDatasetPermissions(req, ctx) {
      const s = store();
      const row = await load(s, callerOf(ctx), req.datasetId);
      return { permissions: await permissionsOf(s, row) };
    },

    async updateDatasetPermissions(req, ctx) {
      const s = store();
      const row = await load(s, callerOf(ctx), req.datasetId);
      const add = req.add.map((t, i) => checkRelationTuple(t, row.datasetId, `add[${i}]`));
      const remove = req.remove.map((t, i) => checkRelationTuple(t, row.datasetId, `remove[${i}]`));
      await s.em.transactional(async (em) => {
        const tx = new DatasetStore(em);
        for (const r of remove) await tx.removeRelation({ datasetId: row.datasetId, ...r });
        const existing = await tx.relations(row.datasetId);
        for (const a of add) {
          const present = existing.some((e) => e.subject === a.subject && e.relation === a.relation);
          if (!present) tx.addRelation({ datasetId: row.datasetId, ...a });
        }
      });
      return { permissions: await permissionsOf(store(), row) };
    },

    async createDatasetIfNotExists(req, ctx) {
      const caller = callerOf(ctx);
      const { text, field } = matchQueryOf(req);
      const condition = parseQueryText(text, field);
      const where = whereOf(condition, field);
      const orgId = requireOrg(caller);
      const candidate = newDataset(caller, req.createRequest!, "create_request.");
      const { row, created } = await store().em.transactional(async (em) => {
        const tx = new DatasetStore(em);
        // Keyed on the parsed query, so spellings that differ only in whitespace or quotes serialize too.
        await tx.lockQuery(orgId, JSON.stringify(condition));
        const existing = await tx.firstMatch(orgId, where);
        if (existing) return { row: existing, created: false };
        tx.add(candidate);
        emitDatasetChanged(tx, candidate, DatasetChange.CREATED, candidate.createdBy);
        return { row: candidate, created: true };
      });
      if (created) context.eventsWritten();
      return { dataset: datasetToProto(row) };
    },

    async queryDatasets(req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      const plan = planDatasetSearch(req.query ?? {});
      if (!orgId) return { items: [], totalCount: 0n };
      const { rows, hasMore, cursors, total } = await store().search(orgId, plan);
      const items = fitPage(DatasetSchema, rows.map(datasetToProto));
      // The next page starts after the last dataset kept: fitPage may keep fewer than were read.
      const nextToken = plan.nextToken(cursors[items.length - 1], hasMore || items.length < rows.length);
      return { items, ...(total !== undefined ? { totalCount: BigInt(total) } : {}), ...(nextToken ? { nextToken } : {}) };
    },

    async listDatasetMetadataKeys(_req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      return { keys: orgId ? await store().metadataKeys(orgId) : [] };
    },
  };
}

/**
 * The text query of a create-if-not-exists request and the name of the field that carried it
 * (the spec's `match_serviceql_query` or the SDK's `match_roboql_query`), so errors name what was sent.
 */
function matchQueryOf(req: CreateDatasetIfNotExistsRequest): { text: string; field: string } {
  if (req.matchServiceqlQuery !== undefined) return { text: req.matchServiceqlQuery, field: "match_serviceql_query" };
  if (req.matchRoboqlQuery !== undefined) return { text: req.matchRoboqlQuery, field: "match_roboql_query" };
  throw badRequest("match_serviceql_query: is required (or match_roboql_query)");
}

/** Builds a new dataset row from a create request, validating it. */
function newDataset(caller: Principal, req: CreateDatasetRequest, fieldPrefix: string): DatasetRecord {
  const orgId = requireOrg(caller);
  const now = new Date();
  return {
    datasetId: newId("ds"),
    orgId,
    name: checkDatasetName(req.name, `${fieldPrefix}name`),
    description: req.description ?? null,
    deviceId: req.deviceId ?? null,
    metadata: req.metadata ?? {},
    customFields: req.customFields ?? {},
    tags: checkTags(req.tags, `${fieldPrefix}tags`),
    created: now,
    createdBy: caller.subject,
    modified: now,
    modifiedBy: caller.subject,
    serviceRecordVersion: 1,
  };
}

function emitDatasetChanged(s: DatasetStore, row: DatasetRecord, change: DatasetChange, actor: string): void {
  const payload = toBinary(
    DatasetChangedSchema,
    create(DatasetChangedSchema, { orgId: row.orgId, datasetId: row.datasetId, change, occurred: timestampNow(), actor }),
  );
  recordEvent(s.em, { topic: TOPICS.datasetChanged, key: row.datasetId, payload });
}

async function permissionsOf(s: DatasetStore, row: DatasetRecord) {
  const stored = await s.relations(row.datasetId);
  const obj = datasetObject(row.datasetId);
  return {
    relations: [
      { user: row.createdBy, relation: "owner", obj },
      { user: `org:${row.orgId}#member`, relation: "editor", obj },
      ...stored.map((r) => ({ user: r.subject, relation: r.relation, obj })),
    ],
    groupPermissions: groupPermissions(),
  };
}
