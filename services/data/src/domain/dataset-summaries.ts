import { newId, notFound, type UnitOfWork } from "@hangar/shared";
import type { Actor } from "./actor";
import type { DatasetRecord } from "./datasets";
import type { DataRepositories } from "./repositories";

/** A dataset's summary (the SDK's AISummary): `complete` once written; `pending` and `failed` are the assistant's later states. */
export interface DatasetSummaryRow {
  datasetId: string;
  orgId: string;
  summaryId: string;
  text: string;
  status: "pending" | "complete" | "failed";
  created: Date;
  createdBy: string;
}

/** What a summary composed by the platform says of a dataset: its files and its topics. */
export interface DatasetFacts {
  fileCount: number;
  totalBytes: bigint;
  topicCount: number;
  /** The first topic names, by name (at most SUMMARY_TOPIC_NAMES). */
  topicNames: string[];
}

/** How many topic names a composed summary lists before saying how many more there are. */
export const SUMMARY_TOPIC_NAMES = 20;

/** The stored summaries of datasets, and the facts a composed one reads. */
export interface DatasetSummaryRepository {
  /** The dataset's summary, or null when none was written. */
  find(datasetId: string): Promise<DatasetSummaryRow | null>;
  /** Writes the dataset's summary, replacing the one before. */
  put(row: DatasetSummaryRow): Promise<void>;
  /** The dataset's available files and topics, as a composed summary states them. */
  facts(datasetId: string): Promise<DatasetFacts>;
}

/** What the summary use cases reach. */
export type DatasetSummaryRepositories = Pick<DataRepositories, "datasets" | "datasetSummaries" | "tree">;

/** The dataset's summary (get_dataset_summary); a 404 when none was written, as reading never generates one. */
export async function getDatasetSummary(uow: UnitOfWork<DatasetSummaryRepositories>, actor: Actor, datasetId: string): Promise<DatasetSummaryRow> {
  const r = uow.repositories();
  const dataset = await readableDataset(r, actor, datasetId);
  const summary = await r.datasetSummaries.find(dataset.datasetId);
  if (!summary) throw notFound("summary of dataset", datasetId);
  return summary;
}

/** Stores the caller's summary text (set_dataset_summary), `complete`, replacing any before (its length limit is the proto's). */
export async function setDatasetSummary(uow: UnitOfWork<DatasetSummaryRepositories>, actor: Actor, datasetId: string, text: string): Promise<DatasetSummaryRow> {
  const r = uow.repositories();
  const dataset = await readableDataset(r, actor, datasetId);
  return writeSummary(r, actor, dataset, text);
}

/**
 * Regenerates the summary (regenerate_dataset_summary). Until the assistant service writes AI
 * summaries, the platform composes one from the dataset's own records (its name, description,
 * files and topics), `complete` at once, so the SDK's `generate_summary()` returns instead of
 * polling a summary nothing would finish; a later regeneration (or a set) replaces it.
 */
export async function regenerateDatasetSummary(uow: UnitOfWork<DatasetSummaryRepositories>, actor: Actor, datasetId: string): Promise<DatasetSummaryRow> {
  const r = uow.repositories();
  const dataset = await readableDataset(r, actor, datasetId);
  return writeSummary(r, actor, dataset, composeSummary(dataset, await r.datasetSummaries.facts(dataset.datasetId)));
}

/** The number of the dataset's available files (the dataset `files/count` route). */
export async function countDatasetFiles(uow: UnitOfWork<DatasetSummaryRepositories>, actor: Actor, datasetId: string): Promise<number> {
  const r = uow.repositories();
  const dataset = await readableDataset(r, actor, datasetId);
  return r.tree.countFiles(dataset.datasetId, "", true);
}

/** The summary text the platform composes: Markdown stating what the dataset holds. */
export function composeSummary(dataset: DatasetRecord, facts: DatasetFacts): string {
  const lines = [`**${dataset.name ?? dataset.datasetId}**${dataset.description ? `: ${dataset.description}` : ""}`, ""];
  lines.push(`${facts.fileCount} ${facts.fileCount === 1 ? "file" : "files"}, ${facts.totalBytes} bytes in all.`);
  if (facts.topicCount === 0) return [...lines, "No topics are registered."].join("\n");
  const more = facts.topicCount - facts.topicNames.length;
  lines.push(`${facts.topicCount} ${facts.topicCount === 1 ? "topic" : "topics"}: ${facts.topicNames.map((n) => `\`${n}\``).join(", ")}${more > 0 ? ` and ${more} more` : ""}.`);
  return lines.join("\n");
}

async function readableDataset(r: DatasetSummaryRepositories, actor: Actor, datasetId: string): Promise<DatasetRecord> {
  const dataset = actor.orgId ? await r.datasets.read(actor.orgId, datasetId) : null;
  if (!dataset) throw notFound("dataset", datasetId);
  return dataset;
}

async function writeSummary(r: DatasetSummaryRepositories, actor: Actor, dataset: DatasetRecord, text: string): Promise<DatasetSummaryRow> {
  const row: DatasetSummaryRow = { datasetId: dataset.datasetId, orgId: dataset.orgId, summaryId: newId("sm"), text, status: "complete", created: new Date(), createdBy: actor.subject };
  await r.datasetSummaries.put(row);
  return row;
}
