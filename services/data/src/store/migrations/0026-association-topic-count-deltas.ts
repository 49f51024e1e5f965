import { Migration } from "@mikro-orm/migrations";

/**
 * The topic counters of 0025 without waits or deadlocks: a changing statement no longer updates its
 * associations' counter rows (whose locks it then held to commit, so a second writer of an
 * association waited, and two transactions writing two associations in opposite orders
 * deadlocked) but inserts its deltas as rows of their own, which lock nothing another writer
 * needs. A count is the sum of its association's rows. So that they stay few, the statement then
 * folds the rows of the associations it changed that no open transaction holds (SKIP LOCKED: it
 * never waits) into one each (none when they add up to 0); rows folded by two transactions at once
 * are disjoint, so no delta is lost or counted twice. Each trigger hands its deltas to
 * `association_topic_counts_apply`, one insert and one fold whatever the number of associations (one
 * call per association took 419 s to seed bench:topics' 1,000,000 topics of 50,000 files). The
 * platform's transactions are READ COMMITTED, where a row folded and committed meanwhile is skipped.
 */
export class Migration0026AssociationTopicCountDeltas extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table association_topic_counts drop constraint association_topic_counts_pkey;
      create index association_topic_counts_association_idx on association_topic_counts (association_id);

      create function association_topic_counts_apply(associations text[], deltas bigint[]) returns void language sql as $$
        insert into association_topic_counts (association_id, topics) select * from unnest(associations, deltas) as d(association_id, topics) where d.topics <> 0;
        with folded as (
          delete from association_topic_counts where ctid = any(array(
            select ctid from association_topic_counts where association_id = any(associations) for update skip locked))
          returning association_id, topics
        )
        insert into association_topic_counts (association_id, topics)
        select association_id, sum(topics) from folded group by association_id having sum(topics) <> 0
      $$;
      create or replace function topics_counted_in() returns trigger language plpgsql as $$
      begin
        perform association_topic_counts_apply(array_agg(association_id), array_agg(n)) from (
          select association_id, count(*) as n from changed_new group by association_id) counted;
        return null;
      end
      $$;
      create or replace function topics_counted_out() returns trigger language plpgsql as $$
      begin
        perform association_topic_counts_apply(array_agg(association_id), array_agg(-n)) from (
          select association_id, count(*) as n from changed_old group by association_id) counted;
        return null;
      end
      $$;
      create or replace function topics_counted_moved() returns trigger language plpgsql as $$
      begin
        perform association_topic_counts_apply(array_agg(association_id), array_agg(n)) from (
          select association_id, sum(delta)::bigint as n from (
            select association_id, 1 as delta from changed_new union all select association_id, -1 from changed_old
          ) moved group by association_id having sum(delta) <> 0) counted;
        return null;
      end
      $$;
      drop function association_topic_counts_add(bigint, text);
    `);
  }
}
