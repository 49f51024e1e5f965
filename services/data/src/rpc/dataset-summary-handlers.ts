import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { callerOf, type UnitOfWork } from "@hangar/shared";
import type { DataService, DatasetSummarySchema } from "@hangar/shared/proto/data";
import {
  countDatasetFiles,
  getDatasetSummary,
  regenerateDatasetSummary,
  setDatasetSummary,
  type DatasetSummaryRepositories,
  type DatasetSummaryRow,
} from "../domain/dataset-summaries";
import type { DataRepositories } from "../domain/repositories";
import { readerOfRecord } from "./actors";

type DatasetSummaryHandlers = Pick<ServiceImpl<typeof DataService>, "getDatasetSummary" | "regenerateDatasetSummary" | "setDatasetSummary" | "countDatasetFiles">;

/** Implements the dataset summary rows (91-93) and the dataset file count (94) (rules in domain/dataset-summaries). */
export function createDatasetSummaryHandlers(uow: UnitOfWork<DatasetSummaryRepositories & Pick<DataRepositories, "owners">>): DatasetSummaryHandlers {
  // By id alone, as get_dataset: a caller in several orgs reaches the dataset in whichever holds it.
  const reader = (ctx: HandlerContext, datasetId: string) => readerOfRecord(uow, callerOf(ctx), "dataset", datasetId);
  return {
    async getDatasetSummary(req, ctx) {
      return { summary: summaryToProto(await getDatasetSummary(uow, await reader(ctx, req.datasetId), req.datasetId)) };
    },

    async regenerateDatasetSummary(req, ctx) {
      return { summary: summaryToProto(await regenerateDatasetSummary(uow, await reader(ctx, req.datasetId), req.datasetId)) };
    },

    async setDatasetSummary(req, ctx) {
      return { summary: summaryToProto(await setDatasetSummary(uow, await reader(ctx, req.datasetId), req.datasetId, req.summary)) };
    },

    async countDatasetFiles(req, ctx) {
      return { count: BigInt(await countDatasetFiles(uow, await reader(ctx, req.datasetId), req.datasetId)) };
    },
  };
}

function summaryToProto(row: DatasetSummaryRow): MessageInitShape<typeof DatasetSummarySchema> {
  return { summaryId: row.summaryId, text: row.text, created: timestampFromDate(row.created), status: row.status };
}
