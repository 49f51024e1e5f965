import { EntitySchema } from "@mikro-orm/core";
import { Migration } from "@mikro-orm/migrations";

/** The record that a consumer has applied an event; written in the same transaction as the effect. */
export interface ProcessedEventRow {
  consumer: string;
  eventId: string;
  processed: Date;
}

/** An event a consumer gave up on after bounded retries, kept with its error. */
export interface DeadLetterRow {
  consumer: string;
  eventId: string;
  topic: string;
  error: string;
  payload: Buffer;
  created: Date;
}

export const ProcessedEvent = new EntitySchema<ProcessedEventRow>({
  name: "ProcessedEvent",
  tableName: "processed_events",
  properties: {
    consumer: { type: "string", primary: true },
    eventId: { type: "string", primary: true },
    processed: { type: "Date" },
  },
});

export const DeadLetter = new EntitySchema<DeadLetterRow>({
  name: "DeadLetter",
  tableName: "dead_letters",
  properties: {
    consumer: { type: "string", primary: true },
    eventId: { type: "string", primary: true },
    topic: { type: "string" },
    error: { type: "string" },
    payload: { type: "Buffer", columnType: "bytea" },
    created: { type: "Date" },
  },
});

/** Entities every service that emits or consumes events registers (the outbox has none: recordEvent and the relay use SQL). */
export const eventEntities = [ProcessedEvent, DeadLetter];

/** Creates the outbox, processed-event and dead-letter tables; each service lists it first. */
export class MigrationEventTables extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table outbox (
        seq bigserial primary key,
        event_id text not null unique,
        topic text not null,
        key text not null,
        payload bytea not null,
        headers jsonb not null default '{}',
        created timestamptz not null,
        published timestamptz
      );
      create index outbox_unpublished_idx on outbox (seq) where published is null;
      create table processed_events (
        consumer text not null,
        event_id text not null,
        processed timestamptz not null,
        primary key (consumer, event_id)
      );
      create table dead_letters (
        consumer text not null,
        event_id text not null,
        topic text not null,
        error text not null,
        payload bytea not null,
        created timestamptz not null,
        primary key (consumer, event_id)
      );
    `);
  }
}

/** The migration entry for `MigrationEventTables`. */
export const eventTablesMigration = { name: "0000-event-tables", class: MigrationEventTables };
