import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, fitPage, invalidArgument, nullableString, type Principal, type UnitOfWork } from "@hangar/shared";
import { CollectionSchema, type CollectionResourceRef, type DataService } from "@hangar/shared/proto/data";
import {
  contentsOf,
  createCollection,
  deleteCollection,
  getCollection,
  getCollectionPermissions,
  listCollectionChanges,
  searchCollections,
  updateCollection,
  updateCollectionPermissions,
  type CollectionRepositories,
} from "../domain/collection-use-cases";
import { checkContentMode, type CollectionRecord, type ContentMode } from "../domain/collections";
import type { Actor } from "../domain/actor";
import type { DataRepositories } from "../domain/repositories";
import { readerOf, readerOfRecord, writerOf } from "./actors";
import { changeToProto, collectionToProto } from "./collection-mappers";

type CollectionHandlers = Pick<
  ServiceImpl<typeof DataService>,
  | "createCollection"
  | "getCollection"
  | "updateCollection"
  | "deleteCollection"
  | "listCollectionChanges"
  | "queryCollections"
  | "getCollectionPermissions"
  | "updateCollectionPermissions"
>;

/**
 * The collection operations of hangar.data.v1.DataService (rules in domain/collection-use-cases):
 * every call reads and writes the caller's org only, so another org's collection is a 404. Creates
 * and updates answer the collection with its member records (`full`), as get_collection does.
 */
export function createCollectionHandlers(uow: UnitOfWork<CollectionRepositories & Pick<DataRepositories, "owners">>): CollectionHandlers {
  /** The caller as a reader of the collection: a caller in several orgs naming none reaches it in its own org. */
  const reader = (caller: Principal, collectionId: string): Promise<Actor> => readerOfRecord(uow, caller, "collection", collectionId);
  /** The wire record of a collection as it is now, its members in `mode`. */
  const view = async (record: CollectionRecord, mode: ContentMode) => {
    const r = uow.repositories();
    return collectionToProto(record, await contentsOf(r, record.orgId, mode === "summary_only" ? [] : await r.collections.members(record.collectionId), mode));
  };
  return {
    async createCollection(req, ctx) {
      const record = await createCollection(uow, writerOf(callerOf(ctx)), {
        name: req.name,
        description: req.description,
        resourceType: req.resourceType,
        resources: req.resources.map(refOf),
        tags: req.tags,
        customFields: req.customFields,
      });
      return { collection: await view(record, "full") };
    },

    async getCollection(req, ctx) {
      const mode = checkContentMode(req.contentMode, "full");
      const { record, contents } = await getCollection(uow, await reader(callerOf(ctx), req.collectionId), req.collectionId, mode, versionOf(req.version, "version"));
      return { collection: collectionToProto(record, contents) };
    },

    async updateCollection(req, ctx) {
      const record = await updateCollection(uow, await reader(callerOf(ctx), req.collectionId), req.collectionId, {
        name: nullableString(req.name, "name"),
        description: nullableString(req.description, "description"),
        addResources: req.addResources.map(refOf),
        removeResources: req.removeResources.map(refOf),
        addTags: req.addTags,
        removeTags: req.removeTags,
        customFieldsChangeset: req.customFieldsChangeset,
      });
      return { collection: await view(record, "full") };
    },

    async deleteCollection(req, ctx) {
      await deleteCollection(uow, await reader(callerOf(ctx), req.collectionId), req.collectionId);
      return {};
    },

    async listCollectionChanges(req, ctx) {
      const range = { from: versionOf(req.fromVersion, "from_version"), to: versionOf(req.toVersion, "to_version"), pageToken: req.pageToken };
      const { items, nextToken } = await listCollectionChanges(uow, await reader(callerOf(ctx), req.collectionId), req.collectionId, range);
      return { items: items.map(changeToProto), ...(nextToken ? { nextToken } : {}) };
    },

    async queryCollections(req, ctx) {
      const mode = checkContentMode(req.contentMode, "summary_only");
      const found = await searchCollections(uow, readerOf(callerOf(ctx)), req.query ?? {});
      if (!found) return { items: [], totalCount: 0n };
      const { plan, page } = found;
      const items = fitPage(CollectionSchema, await Promise.all(page.rows.map((record) => view(record, mode))));
      // The next page starts after the last collection kept: fitPage may keep fewer than were read.
      const nextToken = plan.nextToken(page.cursors[items.length - 1], page.hasMore || items.length < page.rows.length);
      return { items, ...(page.total !== undefined ? { totalCount: BigInt(page.total) } : {}), ...(nextToken ? { nextToken } : {}) };
    },

    async getCollectionPermissions(req, ctx) {
      return { permissions: await getCollectionPermissions(uow, await reader(callerOf(ctx), req.collectionId), req.collectionId) };
    },

    async updateCollectionPermissions(req, ctx) {
      return { permissions: await updateCollectionPermissions(uow, await reader(callerOf(ctx), req.collectionId), req.collectionId, req) };
    },
  };
}

function refOf(ref: CollectionResourceRef) {
  return { resourceType: ref.resourceType, resourceId: ref.resourceId, resourceVersion: ref.resourceVersion };
}

/** A version bound from the wire: absent stays absent; it must fit a version number. */
function versionOf(value: bigint | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (value < 0n || value > 2_147_483_647n) throw invalidArgument(field, "must be between 0 and 2147483647");
  return Number(value);
}
