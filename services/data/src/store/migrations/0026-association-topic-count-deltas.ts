import { Migration } from "@mikro-orm/migrations";

/**
 * The topic counters of 0025 without waits or deadlocks: a changing statement no longer updates its
 * association's one counter row (whose lock it then held to commit, so a second writer of the
 * association waited, and two transactions writing two associations in opposite orders
 * deadlocked) but inserts its delta as a row of its own, which locks nothing another writer needs.
 * The count is the sum of the association's rows. So that they stay few, the statement then folds
 * the association's rows that no open transaction holds (SKIP LOCKED: it never waits) into one (none
 * when they add up to 0); rows folded by two transactions at once are disjoint, so no delta is lost
 * or counted twice. The platform's transactions are READ COMMITTED, where a row folded and
 * committed meanwhile is skipped.
 */
export class Migration0026AssociationTopicCountDeltas extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table association_topic_counts drop constraint association_topic_counts_pkey;
      create index association_topic_counts_association_idx on association_topic_counts (association_id);

      create or replace function association_topic_counts_add(delta bigint, association text) returns void language sql as $$
        insert into association_topic_counts (association_id, topics) values (association, delta);
        with folded as (
          delete from association_topic_counts where ctid = any(array(
            select ctid from association_topic_counts where association_id = association for update skip locked))
          returning topics
        )
        insert into association_topic_counts (association_id, topics) select association, sum(topics) from folded having sum(topics) <> 0
      $$;
    `);
  }
}
