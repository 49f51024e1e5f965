import { fromJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import { MAX_LIMIT } from "@hangar/shared";
import type { DataService } from "@hangar/shared/proto/data";
import type { UningestedFiles } from "./domain/existing-files";
import type { IngestableMarks, RulePathsReplica } from "./domain/ingestable-files";

const NOT_INGESTED = fromJson(ValueSchema, {
  operator: "AND",
  conditions: [
    { field: "ingestion_status", comparator: "EQUALS", value: "not_ingested" },
    { field: "status", comparator: "EQUALS", value: "available" },
  ],
});

/** The org's available, not-ingested files, oldest first, from the data service's query_files, and the complete sessions holding them (acting in that org). */
export function dataServiceUningestedFiles(clientFor: (orgId: string) => Client<typeof DataService>): UningestedFiles {
  return {
    async page(orgId, pageToken) {
      const page = await clientFor(orgId).queryFiles({
        query: { condition: NOT_INGESTED, limit: BigInt(MAX_LIMIT), sortBy: "created", sortDirection: "ASC", ...(pageToken ? { after: pageToken } : {}) },
      });
      return { files: page.items.map((f) => ({ fileId: f.fileId, relativePath: f.relativePath })), nextToken: page.nextToken || undefined };
    },
    async completeSessions(orgId, fileIds) {
      if (fileIds.length === 0) return 0;
      return Number((await clientFor(orgId).countCompleteSessions({ fileIds: [...fileIds] })).count);
    },
  };
}

/** Marks file versions ingestable through the data service's MarkFilesIngestable (acting in the org). */
export function dataServiceIngestableMarks(clientFor: (orgId: string) => Client<typeof DataService>): IngestableMarks {
  return {
    async mark(orgId, files) {
      await clientFor(orgId).markFilesIngestable({ files: [...files] });
    },
  };
}

/** Keeps the org's rules' patterns in the data service through its SetIngestionPathRules (acting in the org). */
export function dataServiceRulePaths(clientFor: (orgId: string) => Client<typeof DataService>): RulePathsReplica {
  return {
    async send(orgId, rules, asOf) {
      await clientFor(orgId).setIngestionPathRules({ rules: rules.map((rule) => ({ includePatterns: [...rule.includePatterns], excludePatterns: [...rule.excludePatterns] })), asOfMs: BigInt(asOf.getTime()) });
    },
  };
}
