import { Migration } from "@mikro-orm/migrations";

/**
 * SDK 0.62's value queries page in the order of a value's session time, ties broken by the
 * session (README, Metrics). The time indexes of migration 0017 gain the session as their last key,
 * so a page of one metric in that order, first or deep, is a range of one index, as the keyset
 * predicate `(time, session_id) > (...)` asks; their included columns still serve aggregations
 * that read the values.
 */
export class Migration0023MetricsGroups extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      drop index metric_values_metric_end_idx;
      drop index metric_values_metric_start_idx;
      create index metric_values_metric_end_idx on metric_values (metric_id, session_end_ns, session_id) include (value, device_id, invocation_id);
      create index metric_values_metric_start_idx on metric_values (metric_id, session_start_ns, session_id) include (value, device_id, invocation_id);
    `);
  }
}
