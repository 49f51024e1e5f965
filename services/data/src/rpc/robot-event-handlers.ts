import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, nullableString, planKeysetPage, type UnitOfWork } from "@hangar/shared";
import { RobotEventSchema, type DataService, type EventAssociation as EventAssociationMessage, type EventAssociationSchema } from "@hangar/shared/proto/data";
import {
  countDatasetRobotEvents,
  createRobotEvent,
  deleteRobotEvent,
  deleteRobotEvents,
  getRobotEvent,
  listDatasetRobotEvents,
  listRobotEventsFor,
  updateRobotEvent,
  type RobotEventRepositories,
} from "../domain/robot-event-use-cases";
import { checkEventAssociation, type EventAssociation, type RobotEventWithAssociations } from "../domain/robot-events";
import { readerOf, writerOf } from "./actors";
import { pageToProto } from "./device-mappers";

type RobotEventHandlers = Pick<
  ServiceImpl<typeof DataService>,
  | "createRobotEvent"
  | "deleteRobotEvents"
  | "getRobotEvent"
  | "updateRobotEvent"
  | "deleteRobotEvent"
  | "listRobotEventsForAssociations"
  | "listDatasetRobotEvents"
  | "countDatasetRobotEvents"
>;

/**
 * The event operations (rules in domain/robot-event-use-cases). Any member of the event's org
 * reads and edits it; another org's event is a 404 and never appears in a listing.
 */
export function createRobotEventHandlers({ uow }: { uow: UnitOfWork<RobotEventRepositories> }): RobotEventHandlers {
  return {
    async createRobotEvent(req, ctx) {
      const created = await createRobotEvent(uow, writerOf(callerOf(ctx)), {
        name: req.name,
        description: req.description,
        startTime: req.startTime,
        endTime: req.endTime,
        associations: associationsOf(req.associations),
        metadata: req.metadata,
        customFields: req.customFields,
        tags: req.tags,
        displayColor: req.displayOptions?.color,
      });
      return { event: robotEventToProto(created) };
    },

    async deleteRobotEvents(req, ctx) {
      await deleteRobotEvents(uow, readerOf(callerOf(ctx)), req.eventIds);
      return {};
    },

    async getRobotEvent(req, ctx) {
      return { event: robotEventToProto(await getRobotEvent(uow, readerOf(callerOf(ctx)), req.eventId)) };
    },

    async updateRobotEvent(req, ctx) {
      const updated = await updateRobotEvent(uow, readerOf(callerOf(ctx)), req.eventId, {
        name: req.name,
        description: nullableString(req.description, "description"),
        startTime: req.startTime,
        endTime: req.endTime,
        metadataChangeset: req.metadataChangeset,
        customFieldsChangeset: req.customFieldsChangeset,
        displayColor: nullableString(req.displayOptionsChangeset?.color, "display_options_changeset.color"),
      });
      return { event: robotEventToProto(updated) };
    },

    async deleteRobotEvent(req, ctx) {
      await deleteRobotEvent(uow, readerOf(callerOf(ctx)), req.eventId);
      return {};
    },

    async listRobotEventsForAssociations(req, ctx) {
      const associations = associationsOf(req.associations);
      const range = planKeysetPage(req.pageSize, req.pageToken, `events-for:${JSON.stringify(associations.map((a) => [a.associationType, a.associationId]))}`);
      return pageToProto(await listRobotEventsFor(uow, readerOf(callerOf(ctx)), associations, range), range, RobotEventSchema, robotEventToProto);
    },

    async listDatasetRobotEvents(req, ctx) {
      const range = planKeysetPage(req.pageSize, req.pageToken, `dataset-events:${req.datasetId}`);
      return pageToProto(await listDatasetRobotEvents(uow, readerOf(callerOf(ctx)), req.datasetId, range), range, RobotEventSchema, robotEventToProto);
    },

    async countDatasetRobotEvents(req, ctx) {
      return { count: BigInt(await countDatasetRobotEvents(uow, readerOf(callerOf(ctx)), req.datasetId)) };
    },
  };
}

/** An event with its associations to the wire record; a file's association carries its dataset as `parent`. */
export function robotEventToProto({ event, associations }: RobotEventWithAssociations): MessageInitShape<typeof RobotEventSchema> {
  return {
    eventId: event.eventId,
    orgId: event.orgId,
    associations: associations.map(associationToProto),
    created: timestampFromDate(event.created),
    createdBy: event.createdBy,
    ...(event.description !== null ? { description: event.description } : {}),
    startTime: event.startTime,
    endTime: event.endTime,
    metadata: event.metadata,
    customFields: event.customFields,
    modified: timestampFromDate(event.modified),
    modifiedBy: event.modifiedBy,
    name: event.name,
    tags: event.tags,
    ...(event.displayColor !== null ? { displayOptions: { color: event.displayColor } } : {}),
  };
}

function associationToProto(a: EventAssociation): MessageInitShape<typeof EventAssociationSchema> {
  return {
    associationId: a.associationId,
    associationType: a.associationType,
    ...(a.associationVersion !== null ? { associationVersion: a.associationVersion } : {}),
    ...(a.parentDatasetId ? { parent: { associationId: a.parentDatasetId, associationType: "dataset" } } : {}),
  };
}

function associationsOf(list: readonly EventAssociationMessage[]): EventAssociation[] {
  return list.map((a, i) => checkEventAssociation(a, `associations[${i}]`));
}
