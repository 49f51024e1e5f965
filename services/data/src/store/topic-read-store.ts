import type { EntityManager } from "@hangar/shared";
import type { TimelineSourceRow } from "../domain/file-topics";
import type { TopicReadRepository } from "../domain/topic-reads";
import type { TopicRow } from "../domain/topics";
import { topicFromRow } from "./topic-store";

type Row = Record<string, unknown>;

/** The v2 topic reads in SQL: one statement per method. */
export class TopicReadStore implements TopicReadRepository {
  constructor(readonly em: EntityManager) {}

  async sources(topicId: string): Promise<TimelineSourceRow[]> {
    const rows = await this.em.execute<Row[]>("select * from timeline_sources where topic_id = ? order by name", [topicId]);
    return rows.map((row) => ({
      timelineSourceId: row.timeline_source_id as string,
      topicId: row.topic_id as string,
      orgId: row.org_id as string,
      name: row.name as string,
      kind: row.kind as string,
      fieldPath: row.field_path as string[],
      isDefaultForReads: row.is_default_for_reads as boolean,
    }));
  }

  async firstWithSchema(orgId: string, checksum: string): Promise<TopicRow | null> {
    const [row] = await this.em.execute<Row[]>("select * from topics where org_id = ? and schema_checksum = ? order by created, topic_id limit 1", [orgId, checksum]);
    return row ? topicFromRow(row) : null;
  }
}
