import { EntitySchema } from "@mikro-orm/core";
import type { CollectionRecord, CollectionVersion } from "../domain/collections";

/** A collection row (`collections`). */
export const Collection = new EntitySchema<CollectionRecord>({
  name: "Collection",
  tableName: "collections",
  properties: {
    collectionId: { type: "string", primary: true },
    orgId: { type: "string" },
    name: { type: "string", nullable: true },
    description: { type: "string", nullable: true },
    resourceType: { type: "string" },
    tags: { type: "string[]" },
    customFields: { type: "json" },
    resourceCount: { type: "integer" },
    version: { type: "integer" },
    created: { type: "Date" },
    createdBy: { type: "string" },
    updated: { type: "Date" },
    updatedBy: { type: "string" },
  },
});

/** One version of a collection (`collection_versions`). */
export const CollectionVersionEntity = new EntitySchema<CollectionVersion>({
  name: "CollectionVersion",
  tableName: "collection_versions",
  properties: {
    collectionId: { type: "string", primary: true },
    version: { type: "integer", primary: true },
    name: { type: "string", nullable: true },
    description: { type: "string", nullable: true },
    tags: { type: "string[]" },
    customFields: { type: "json" },
    resourceCount: { type: "integer" },
    applied: { type: "Date" },
    appliedBy: { type: "string" },
    changeSet: { type: "json", nullable: true },
  },
});

/** A stored permission tuple of a collection (`collection_relations`). */
export const CollectionRelation = new EntitySchema<{ collectionId: string; subject: string; relation: string }>({
  name: "CollectionRelation",
  tableName: "collection_relations",
  properties: {
    collectionId: { type: "string", primary: true },
    subject: { type: "string", primary: true },
    relation: { type: "string", primary: true },
  },
});

/** The collection entities, for the ORM's configuration. */
export const collectionEntities = [Collection, CollectionVersionEntity, CollectionRelation];
