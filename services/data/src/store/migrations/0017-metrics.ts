import { Migration } from "@mikro-orm/migrations";

/**
 * Metric definitions and values (routes.md rows 196-204). A value belongs to one (metric, session)
 * pair, and its time is its session's: the session's bounds are copied onto the value, and kept in
 * step by a trigger on `sessions`, so that the time filters read one table and one index.
 *
 * Aggregation reads `metric_daily`: per metric, UTC day, device and time kind (`s` the session's
 * start, `e` its end), the count, sum, min and max of the values. Every period the API offers
 * (ISO week, month, quarter, year) is a union of whole UTC days, so any aggregation without a
 * session or invocation filter adds up days instead of values: over 10,000,000 values a yearly
 * aggregate reads at most 366 rows per device and kind (bench/metrics.mjs). A statement trigger on
 * `metric_values` recomputes the days its rows touched, under a per-metric transaction lock, so
 * concurrent publishers of one metric cannot both recompute a day from snapshots missing the
 * other's values (each recomputation runs after the previous one committed, and sees it).
 */
export class Migration0017Metrics extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table metric_definitions (
        metric_id text primary key,
        org_id text not null,
        name text not null,
        description text,
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        seq bigint generated always as identity
      );
      create unique index metric_definitions_org_name_idx on metric_definitions (org_id, name);
      create index metric_definitions_org_seq_idx on metric_definitions (org_id, seq desc);

      create table metric_values (
        metric_id text not null references metric_definitions (metric_id) on delete cascade,
        session_id text not null references sessions (session_id) on delete cascade,
        org_id text not null,
        value double precision not null,
        device_id text,
        invocation_id text,
        session_start_ns bigint,
        session_end_ns bigint,
        published timestamptz not null,
        published_by text not null,
        seq bigint generated always as identity,
        primary key (metric_id, session_id)
      );
      create index metric_values_session_idx on metric_values (session_id);
      create index metric_values_metric_seq_idx on metric_values (metric_id, seq);
      create index metric_values_metric_end_idx on metric_values (metric_id, session_end_ns) include (value, device_id, invocation_id);
      create index metric_values_metric_start_idx on metric_values (metric_id, session_start_ns) include (value, device_id, invocation_id);

      -- The UTC day of an instant in ns since the epoch (floor division, also before 1970).
      create function metric_day(ns bigint) returns integer language sql immutable parallel safe as $$
        select (case when ns >= 0 then ns / 86400000000000 else -((-ns - 1) / 86400000000000) - 1 end)::integer
      $$;

      create table metric_daily (
        metric_id text not null references metric_definitions (metric_id) on delete cascade,
        kind "char" not null check (kind in ('s', 'e')),
        day integer not null,
        device_id text,
        total bigint not null,
        sum double precision not null,
        min double precision not null,
        max double precision not null
      );
      create unique index metric_daily_key_idx on metric_daily (metric_id, kind, day, device_id) nulls not distinct;

      -- Recomputes, per metric and kind, the days from the first to the last one metric_daily_keys
      -- (filled by the triggers below) lists, in one pass over the values of that range (one day
      -- for a publish, which touches one session), after taking the lock of each metric involved,
      -- in one order (no deadlocks). Whole ranges rather than the listed keys alone: a join per
      -- key is planned as a scan per key when the table's statistics lag a bulk load.
      create function metric_daily_recompute() returns void language plpgsql as $$
      declare
        touched record;
      begin
        for touched in select distinct metric_id from metric_daily_keys order by metric_id loop
          perform pg_advisory_xact_lock(hashtextextended('metric_daily:' || touched.metric_id, 0));
        end loop;
        delete from metric_daily d
          using (select metric_id, kind, min(day) as lo, max(day) as hi from metric_daily_keys group by 1, 2) r
          where d.metric_id = r.metric_id and d.kind = r.kind and d.day between r.lo and r.hi;
        insert into metric_daily (metric_id, kind, day, device_id, total, sum, min, max)
          with r as (select metric_id, kind, min(day)::bigint * 86400000000000 as lo_ns, (max(day)::bigint + 1) * 86400000000000 as hi_ns from metric_daily_keys group by 1, 2)
          select v.metric_id, 'e', metric_day(v.session_end_ns), v.device_id, count(*), sum(v.value), min(v.value), max(v.value)
          from r join metric_values v on v.metric_id = r.metric_id and v.session_end_ns >= r.lo_ns and v.session_end_ns < r.hi_ns
          where r.kind = 'e'
          group by 1, 3, 4
          union all
          select v.metric_id, 's', metric_day(v.session_start_ns), v.device_id, count(*), sum(v.value), min(v.value), max(v.value)
          from r join metric_values v on v.metric_id = r.metric_id and v.session_start_ns >= r.lo_ns and v.session_start_ns < r.hi_ns
          where r.kind = 's'
          group by 1, 3, 4;
        truncate metric_daily_keys;
      end
      $$;

      -- The statement triggers queue the (metric, kind, day, device) keys their rows had before
      -- and after the change, then recompute those days.
      create function metric_daily_inserted() returns trigger language plpgsql as $$
      begin
        create temp table if not exists metric_daily_keys (metric_id text, kind "char", day integer, device_id text) on commit drop;
        insert into metric_daily_keys
            select metric_id, 'e'::"char", metric_day(session_end_ns), device_id from changed_new where session_end_ns is not null
            union select metric_id, 's'::"char", metric_day(session_start_ns), device_id from changed_new where session_start_ns is not null;
        perform metric_daily_recompute();
        return null;
      end
      $$;
      create function metric_daily_updated() returns trigger language plpgsql as $$
      begin
        create temp table if not exists metric_daily_keys (metric_id text, kind "char", day integer, device_id text) on commit drop;
        insert into metric_daily_keys
            select metric_id, 'e'::"char", metric_day(session_end_ns), device_id from changed_new where session_end_ns is not null
            union select metric_id, 's'::"char", metric_day(session_start_ns), device_id from changed_new where session_start_ns is not null
            union select metric_id, 'e'::"char", metric_day(session_end_ns), device_id from changed_old where session_end_ns is not null
            union select metric_id, 's'::"char", metric_day(session_start_ns), device_id from changed_old where session_start_ns is not null;
        perform metric_daily_recompute();
        return null;
      end
      $$;
      create function metric_daily_deleted() returns trigger language plpgsql as $$
      begin
        create temp table if not exists metric_daily_keys (metric_id text, kind "char", day integer, device_id text) on commit drop;
        insert into metric_daily_keys
            select metric_id, 'e'::"char", metric_day(session_end_ns), device_id from changed_old where session_end_ns is not null
            union select metric_id, 's'::"char", metric_day(session_start_ns), device_id from changed_old where session_start_ns is not null;
        perform metric_daily_recompute();
        return null;
      end
      $$;
      create trigger metric_values_daily_insert after insert on metric_values
        referencing new table as changed_new for each statement execute function metric_daily_inserted();
      create trigger metric_values_daily_update after update on metric_values
        referencing new table as changed_new old table as changed_old for each statement execute function metric_daily_updated();
      create trigger metric_values_daily_delete after delete on metric_values
        referencing old table as changed_old for each statement execute function metric_daily_deleted();

      -- A value's time is its session's: bounds that change move its values (and their days).
      create function metric_values_follow_session() returns trigger language plpgsql as $$
      begin
        update metric_values set session_start_ns = new.min_timestamp_ns, session_end_ns = new.max_timestamp_ns
          where session_id = new.session_id;
        return null;
      end
      $$;
      create trigger sessions_metric_times after update of min_timestamp_ns, max_timestamp_ns on sessions
        for each row when (old.min_timestamp_ns is distinct from new.min_timestamp_ns or old.max_timestamp_ns is distinct from new.max_timestamp_ns)
        execute function metric_values_follow_session();
    `);
  }
}
