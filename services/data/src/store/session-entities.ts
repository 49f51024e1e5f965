import { BigIntType, EntitySchema } from "@mikro-orm/core";
import type { RobotEventRecord } from "../domain/robot-events";
import type { SessionRecord } from "../domain/sessions";

// Both tables also have a `seq` identity column that orders listings newest first; only the
// listings' SQL reads it. Nanosecond columns are exact JavaScript bigints.
export const Session = new EntitySchema<SessionRecord>({
  name: "Session",
  tableName: "sessions",
  properties: {
    sessionId: { type: "string", primary: true },
    orgId: { type: "string" },
    name: { type: "string", nullable: true },
    description: { type: "string", nullable: true },
    metadata: { type: "json" },
    customFields: { type: "json" },
    tags: { type: "string[]" },
    status: { type: "string" },
    inactivityMinutes: { type: "integer", nullable: true },
    completesAt: { type: "Date", nullable: true },
    completedAt: { type: "Date", nullable: true },
    completedBy: { type: "string", nullable: true },
    ingestedAt: { type: "Date", nullable: true },
    ingestionCount: { type: "integer" },
    minTimestampNs: { type: new BigIntType("bigint"), nullable: true },
    maxTimestampNs: { type: new BigIntType("bigint"), nullable: true },
    created: { type: "Date" },
    createdBy: { type: "string" },
    modified: { type: "Date" },
    modifiedBy: { type: "string" },
  },
});

export const RobotEvent = new EntitySchema<RobotEventRecord>({
  name: "RobotEvent",
  tableName: "robot_events",
  properties: {
    eventId: { type: "string", primary: true },
    orgId: { type: "string" },
    name: { type: "string" },
    description: { type: "string", nullable: true },
    startTime: { type: new BigIntType("bigint") },
    endTime: { type: new BigIntType("bigint") },
    metadata: { type: "json" },
    customFields: { type: "json" },
    tags: { type: "string[]" },
    displayColor: { type: "string", nullable: true },
    created: { type: "Date" },
    createdBy: { type: "string" },
    modified: { type: "Date" },
    modifiedBy: { type: "string" },
  },
});

export const sessionEntities = [Session, RobotEvent];
