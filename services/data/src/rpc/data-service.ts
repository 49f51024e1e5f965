import type { ServiceImpl } from "@connectrpc/connect";
import { badRequest, callerOf, fitPage, nullableString, type UnitOfWork } from "@hangar/shared";
import { DatasetSchema, type CreateDatasetIfNotExistsRequest, type CreateDatasetRequest, type DataService } from "@hangar/shared/proto/data";
import {
  createDataset,
  createDatasetIfNotExists,
  datasetMetadataKeys,
  deleteDataset,
  getDataset,
  getDatasetPermissions,
  searchDatasets,
  updateDataset,
  updateDatasetPermissions,
  type DatasetRepositories,
  type NewDataset,
} from "../domain/dataset-use-cases";
import { readerOf, readerOfRecord, writerOf } from "./actors";
import type { DataRepositories } from "../domain/repositories";
import { datasetToProto } from "../domain/dataset-proto";

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

/** What the dataset operations need. */
export interface DatasetHandlerDeps {
  uow: UnitOfWork<DatasetRepositories & Pick<DataRepositories, "owners">>;
  /** Wakes the outbox relay after a commit that recorded events. */
  eventsWritten(): void;
  /** Wakes the background cleanup after a deletion commits. */
  deleted(): void;
}

/** Implements the dataset operations of hangar.data.v1.DataService (rules in domain/dataset-use-cases). */
export function createDatasetHandlers({ uow, eventsWritten, deleted }: DatasetHandlerDeps): DatasetHandlers {
  return {
    async createDataset(req, ctx) {
      const record = await createDataset(uow, writerOf(callerOf(ctx)), newDatasetOf(req, ""));
      eventsWritten();
      return { dataset: datasetToProto(record) };
    },

    async getDataset(req, ctx) {
      const reader = await readerOfRecord(uow, callerOf(ctx), "dataset", req.datasetId);
      return { dataset: datasetToProto(await getDataset(uow, reader, req.datasetId)) };
    },

    async updateDataset(req, ctx) {
      const actor = readerOf(callerOf(ctx));
      const record = await updateDataset(uow, actor, req.datasetId, {
        name: nullableString(req.name, "name"),
        description: nullableString(req.description, "description"),
        deviceId: nullableString(req.deviceId, "device_id"),
        metadataChangeset: req.metadataChangeset,
        customFieldsChangeset: req.customFieldsChangeset,
      });
      eventsWritten();
      return { dataset: datasetToProto(record) };
    },

    async deleteDataset(req, ctx) {
      await deleteDataset(uow, readerOf(callerOf(ctx)), req.datasetId);
      eventsWritten();
      deleted();
      return {};
    },

    async getDatasetPermissions(req, ctx) {
      return { permissions: await getDatasetPermissions(uow, await readerOfRecord(uow, callerOf(ctx), "dataset", req.datasetId), req.datasetId) };
    },

    async updateDatasetPermissions(req, ctx) {
      return { permissions: await updateDatasetPermissions(uow, readerOf(callerOf(ctx)), req.datasetId, req) };
    },

    async createDatasetIfNotExists(req, ctx) {
      const caller = callerOf(ctx);
      const query = matchQueryOf(req);
      const { record, created } = await createDatasetIfNotExists(uow, writerOf(caller), query, newDatasetOf(req.createRequest!, "create_request."));
      if (created) eventsWritten();
      return { dataset: datasetToProto(record) };
    },

    async queryDatasets(req, ctx) {
      const found = await searchDatasets(uow, readerOf(callerOf(ctx)), req.query ?? {});
      if (!found) return { items: [], totalCount: 0n };
      const { plan, page } = found;
      const items = fitPage(DatasetSchema, page.rows.map(datasetToProto));
      // The next page starts after the last dataset kept: fitPage may keep fewer than were read.
      const nextToken = plan.nextToken(page.cursors[items.length - 1], page.hasMore || items.length < page.rows.length);
      return { items, ...(page.total !== undefined ? { totalCount: BigInt(page.total) } : {}), ...(nextToken ? { nextToken } : {}) };
    },

    async listDatasetMetadataKeys(_req, ctx) {
      return { keys: await datasetMetadataKeys(uow, readerOf(callerOf(ctx))) };
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

function newDatasetOf(req: CreateDatasetRequest, fieldPrefix: string): NewDataset {
  return { name: req.name, description: req.description, deviceId: req.deviceId, metadata: req.metadata, customFields: req.customFields, tags: req.tags, fieldPrefix };
}
