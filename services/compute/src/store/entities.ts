import { IngestionRule } from "./ingestion-rule-store";
import { triggerEntities } from "./trigger-entities";

/**
 * Every entity of the compute service. Actions and invocations have none: their stores read and
 * write them in SQL (action-store, invocation-rows).
 */
export const computeEntities = [...triggerEntities, IngestionRule];
