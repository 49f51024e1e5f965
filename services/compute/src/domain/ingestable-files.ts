import type { UnitOfWork } from "@hangar/shared";
import { rulePathMatches } from "./ingestion-rule-paths";
import type { IngestionRuleRepositories } from "./repositories";

/** A file an upload made available, at the version it made. */
export interface UploadedFileVersion {
  fileId: string;
  relativePath: string;
  version: bigint;
}

/** Where file versions are marked ingestable: the data service, which keeps the files. */
export interface IngestableMarks {
  mark(orgId: string, files: readonly { fileId: string; version: bigint }[]): Promise<void>;
}

/** File versions one mark names at most (the data service's request limit). */
const MARK_BATCH = 1000;

/**
 * Marks the files of an upload into a dataset that an auto-ingesting rule of the org matches (a
 * rule whose trigger runs on the upload) as ingestable at the uploaded version: FileRecord's
 * `ingestable`, which the data service then reads from the file's own row. The rules are read once
 * for the whole upload.
 */
export async function markIngestableUploads(uow: UnitOfWork<IngestionRuleRepositories>, marks: IngestableMarks, orgId: string, files: readonly UploadedFileVersion[]): Promise<void> {
  const rules = (await uow.repositories().ingestionRules.ofOrg(orgId)).filter((rule) => rule.autoIngest && rule.triggerId !== null);
  const matched = files.filter((file) => rules.some((rule) => rulePathMatches(rule, file.relativePath)));
  for (let i = 0; i < matched.length; i += MARK_BATCH) {
    await marks.mark(orgId, matched.slice(i, i + MARK_BATCH).map(({ fileId, version }) => ({ fileId, version })));
  }
}
