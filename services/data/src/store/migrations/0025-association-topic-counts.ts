import { Migration } from "@mikro-orm/migrations";

/**
 * The number of topics of each association, kept by statement triggers on `topics` (one statement
 * per changing statement, whatever its row count), so a topic listing's `total_count` reads one row
 * instead of counting every topic of the association on every page. Topics never change
 * association (an update restates it), but an update is counted as its old rows out and its new
 * rows in all the same. Counts start from the topics already there.
 */
export class Migration0025AssociationTopicCounts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table association_topic_counts (association_id text primary key, topics bigint not null);
      insert into association_topic_counts select association_id, count(*) from topics group by association_id;

      create function association_topic_counts_add(delta bigint, association text) returns void language sql as $$
        insert into association_topic_counts (association_id, topics) values (association, delta)
        on conflict (association_id) do update set topics = association_topic_counts.topics + excluded.topics
      $$;
      create function topics_counted_in() returns trigger language plpgsql as $$
      begin
        perform association_topic_counts_add(count(*), association_id) from changed_new group by association_id order by association_id;
        return null;
      end
      $$;
      create function topics_counted_out() returns trigger language plpgsql as $$
      begin
        perform association_topic_counts_add(-count(*), association_id) from changed_old group by association_id order by association_id;
        return null;
      end
      $$;
      create function topics_counted_moved() returns trigger language plpgsql as $$
      begin
        perform association_topic_counts_add(sum(delta)::bigint, association_id) from (
          select association_id, 1 as delta from changed_new union all select association_id, -1 from changed_old
        ) moved group by association_id having sum(delta) <> 0 order by association_id;
        return null;
      end
      $$;
      create trigger topics_count_insert after insert on topics
        referencing new table as changed_new for each statement execute function topics_counted_in();
      create trigger topics_count_update after update on topics
        referencing new table as changed_new old table as changed_old for each statement execute function topics_counted_moved();
      create trigger topics_count_delete after delete on topics
        referencing old table as changed_old for each statement execute function topics_counted_out();
    `);
  }
}
