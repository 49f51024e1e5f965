import { fromJson, toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { MAX_LIMIT, notFound, peerClients, type ServiceContext } from "@hangar/shared";
import { DataService, DatasetSchema, FileSchema } from "@hangar/shared/proto/data";
import type { DatasetDirectory } from "./domain/datasets";
import type { EntityReader } from "./domain/trigger-dry-run";
import type { GateReaders } from "./domain/trigger-gates";
import { MAX_OCCASION_FILES, type OccasionFile, type TriggerDataQueries } from "./domain/trigger-evaluation";

/** The compute service's clients of the data service, one per org it acts in (cached). */
export function dataServiceClients(context: ServiceContext): (orgId: string) => Client<typeof DataService> {
  return peerClients({
    service: DataService,
    peer: "data",
    caller: "compute",
    locate: context.runtime.locate,
    internalAuthSecret: context.runtime.internalAuthSecret,
  });
}

/** The datasets of each org, as the data service's get_dataset answers (acting in that org). */
export function dataServiceDatasets(clientFor: (orgId: string) => Client<typeof DataService>): DatasetDirectory {
  return {
    async requireDataset(orgId, datasetId) {
      try {
        await clientFor(orgId).getDataset({ datasetId });
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.NotFound) throw notFound("dataset", datasetId);
        throw error;
      }
    },
  };
}

/**
 * The data service's answers to trigger evaluation, asked as the compute service acting in one
 * org: required-input patterns go to its dataset file listing, conditions to its own query engine (so a
 * trigger condition means what the same condition means in query_datasets and query_files).
 */
export function dataServiceQueries(data: Client<typeof DataService>): TriggerDataQueries {
  const conditionOn = (field: string, id: string, condition: JsonValue) =>
    fromJson(ValueSchema, { operator: "AND", conditions: [{ field, comparator: "EQUALS", value: id }, condition] });

  return {
    async anyFileMatches(datasetId, pattern) {
      const page = await data.queryDatasetFiles({ datasetId, includePatterns: [pattern], limit: 1n });
      return page.items.length > 0;
    },

    async filesMatching(datasetId, patterns) {
      const files: OccasionFile[] = [];
      let pageToken: string | undefined;
      do {
        const limit = BigInt(Math.min(MAX_LIMIT, MAX_OCCASION_FILES - files.length));
        const page = await data.queryDatasetFiles({ datasetId, includePatterns: patterns, limit, sortBy: "created", sortDirection: "ASC", ...(pageToken ? { pageToken } : {}) });
        files.push(...page.items.map((f) => ({ fileId: f.fileId, relativePath: f.relativePath })));
        pageToken = page.nextToken;
      } while (pageToken && files.length < MAX_OCCASION_FILES);
      return files;
    },

    async datasetMeets(datasetId, condition) {
      const page = await data.queryDatasets({ query: { condition: conditionOn("dataset_id", datasetId, condition), limit: 1n } });
      return page.items.length > 0;
    },

    async fileMeets(fileId, condition) {
      const page = await data.queryFiles({ query: { condition: conditionOn("file_id", fileId, condition), limit: 1n } });
      return page.items.length > 0;
    },
  };
}

/** The records trigger namespaces dereference (snake_case JSON, as the wire shows them), or null when gone. */
export function dataServiceEntities(clientFor: (orgId: string) => Client<typeof DataService>): EntityReader {
  const orNull = async <T>(read: () => Promise<T>): Promise<T | null> => {
    try {
      return await read();
    } catch (error) {
      if (error instanceof ConnectError && error.code === Code.NotFound) return null;
      throw error;
    }
  };
  return {
    async dataset(orgId, datasetId) {
      const found = await orNull(() => clientFor(orgId).getDataset({ datasetId }));
      return found?.dataset ? (toJson(DatasetSchema, found.dataset, { useProtoFieldName: true }) as JsonObject) : null;
    },
    async file(orgId, fileId) {
      const found = await orNull(() => clientFor(orgId).getFile({ fileId }));
      return found?.file ? (toJson(FileSchema, found.file, { useProtoFieldName: true }) as JsonObject) : null;
    },
  };
}

/** The 0.62 trigger gates' question to the data service: does the dataset hold a file for each pattern? */
export function dataServiceGates(clientFor: (orgId: string) => Client<typeof DataService>): (orgId: string) => GateReaders {
  return (orgId) => {
    const queries = dataServiceQueries(clientFor(orgId));
    return {
      async inputsPresent(datasetId, patterns) {
        const present = await Promise.all(patterns.map((pattern) => queries.anyFileMatches(datasetId, pattern)));
        return present.every(Boolean);
      },
    };
  };
}
