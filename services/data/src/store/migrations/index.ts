import type { MigrationObject } from "@mikro-orm/core";
import { Migration0001Datasets } from "./0001-datasets";
import { Migration0002Files } from "./0002-files";
import { Migration0003FileSearch } from "./0003-file-search";
import { Migration0004Exports } from "./0004-exports";
import { Migration0005ObjectReferences } from "./0005-object-references";
import { Migration0006Devices } from "./0006-devices";
import { Migration0007AssociationDeletions } from "./0007-association-deletions";
import { Migration0008PagingIndexes } from "./0008-paging-indexes";
import { Migration0009Topics } from "./0009-topics";
import { Migration0010SessionsEvents } from "./0010-sessions-events";
import { Migration0011Comments } from "./0011-comments";
import { Migration0012EventTopicTargets } from "./0012-event-topic-targets";
import { Migration0014Robotdata } from "./0014-robotdata";
import { Migration0015SavedQueries } from "./0015-saved-queries";
import { Migration0016Collections } from "./0016-collections";
import { Migration0017Metrics } from "./0017-metrics";
import { Migration0018MetricUnits } from "./0018-metric-units";
import { Migration0019TopicSchemas } from "./0019-topic-schemas";
import { Migration0020TermSearch } from "./0020-term-search";
import { Migration0021TopicQueryIndexes } from "./0021-topic-query-indexes";
import { Migration0022FileIngestable } from "./0022-file-ingestable";

/** The data schema's migrations in the order they apply. */
export const dataMigrations: MigrationObject[] = [
  { name: "0001-datasets", class: Migration0001Datasets },
  { name: "0002-files", class: Migration0002Files },
  { name: "0003-file-search", class: Migration0003FileSearch },
  { name: "0004-exports", class: Migration0004Exports },
  { name: "0005-object-references", class: Migration0005ObjectReferences },
  { name: "0006-devices", class: Migration0006Devices },
  { name: "0007-association-deletions", class: Migration0007AssociationDeletions },
  { name: "0008-paging-indexes", class: Migration0008PagingIndexes },
  { name: "0009-topics", class: Migration0009Topics },
  { name: "0010-sessions-events", class: Migration0010SessionsEvents },
  { name: "0011-comments", class: Migration0011Comments },
  { name: "0012-event-topic-targets", class: Migration0012EventTopicTargets },
  { name: "0014-robotdata", class: Migration0014Robotdata },
  { name: "0015-saved-queries", class: Migration0015SavedQueries },
  { name: "0016-collections", class: Migration0016Collections },
  { name: "0017-metrics", class: Migration0017Metrics },
  { name: "0018-metric-units", class: Migration0018MetricUnits },
  { name: "0019-topic-schemas", class: Migration0019TopicSchemas },
  { name: "0020-term-search", class: Migration0020TermSearch },
  { name: "0021-topic-query-indexes", class: Migration0021TopicQueryIndexes },
  { name: "0022-file-ingestable", class: Migration0022FileIngestable },
];
