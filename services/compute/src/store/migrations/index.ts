import type { MigrationObject } from "@mikro-orm/core";
import { Migration0001ActionsInvocations } from "./0001-actions-invocations";
import { Migration0002Triggers } from "./0002-triggers";
import { Migration0003RunnerLeases } from "./0003-runner-leases";
import { Migration0004EvaluationOccasions } from "./0004-evaluation-occasions";
import { Migration0005TriggerServiceUserGrantor } from "./0005-trigger-service-user-grantor";
import { Migration0006PagingIndexes } from "./0006-paging-indexes";
import { Migration0007DataSourceIndex } from "./0007-data-source-index";
import { Migration0008TriggerModel } from "./0008-trigger-model";
import { Migration0009IngestionRules } from "./0009-ingestion-rules";
import { Migration0010DispatchLeases } from "./0010-dispatch-leases";
import { Migration0011RulePathsResend } from "./0011-rule-paths-resend";

/** The compute schema's migrations in the order they apply. */
export const computeMigrations: MigrationObject[] = [
  { name: "0001-actions-invocations", class: Migration0001ActionsInvocations },
  { name: "0002-triggers", class: Migration0002Triggers },
  { name: "0003-runner-leases", class: Migration0003RunnerLeases },
  { name: "0004-evaluation-occasions", class: Migration0004EvaluationOccasions },
  { name: "0005-trigger-service-user-grantor", class: Migration0005TriggerServiceUserGrantor },
  { name: "0006-paging-indexes", class: Migration0006PagingIndexes },
  { name: "0007-data-source-index", class: Migration0007DataSourceIndex },
  { name: "0008-trigger-model", class: Migration0008TriggerModel },
  { name: "0009-ingestion-rules", class: Migration0009IngestionRules },
  { name: "0010-dispatch-leases", class: Migration0010DispatchLeases },
  { name: "0011-rule-paths-resend", class: Migration0011RulePathsResend },
];
