import { globToRegex, type UnitOfWork } from "@hangar/shared";
import type { FsNodeRow } from "./file-records";
import type { FileRepositories } from "./files";

/**
 * FileRecord `ingestable` beyond uploads (the compute service marks those): the org's ingestion
 * rules, kept here as the compute service sends them, decide it again whenever a file's path
 * changes (rename, move, import) in that change's transaction, and for every file of the org when
 * the rules change. Only dataset files are ever ingestable (rules run on uploads into datasets).
 */

/** One ingestion rule's path patterns as the compute service sends them (its excludes as it applies them, dotfiles included). */
export interface IngestionPathRule {
  includePatterns: readonly string[];
  excludePatterns: readonly string[];
}

/**
 * Keeps the org's auto-ingesting rules, read by the compute service at `asOf`, and recomputes
 * every dataset file of the org from them in the same transaction; a reading older than the one
 * kept changes nothing. Returns how many files changed (0 for an older reading).
 */
export async function setIngestionPathRules(uow: UnitOfWork<FileRepositories>, orgId: string | undefined, rules: readonly IngestionPathRule[], asOf: Date): Promise<number> {
  if (!orgId) return 0;
  const regexes = rules.map((rule, i) => ({
    include: rule.includePatterns.map((p, j) => globToRegex(p, `rules[${i}].include_patterns[${j}]`)),
    exclude: rule.excludePatterns.map((p, j) => globToRegex(p, `rules[${i}].exclude_patterns[${j}]`)),
  }));
  return uow.transaction(async ({ files }) => (await files.setIngestionRules(orgId, regexes, asOf)) ?? 0);
}

/** Whether each path matches a rule of the org (one query); null when the org's rules have not been sent. */
export type IngestableVerdicts = ReadonlyMap<string, boolean> | null;

/**
 * `ingestable_version` for a node written at its (new) path: its version when it is a dataset
 * file a rule matches, else null; nothing (left as it was) when the org's rules have not been sent.
 */
export function ingestableAt(verdicts: IngestableVerdicts, node: Pick<FsNodeRow, "fsType" | "associationType" | "relativePath" | "version">): Pick<FsNodeRow, "ingestableVersion"> {
  if (verdicts === null) return {};
  const matches = node.fsType === "file" && node.associationType === "dataset" && verdicts.get(node.relativePath) === true;
  return { ingestableVersion: matches ? node.version : null };
}
