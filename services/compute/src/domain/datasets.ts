/**
 * The datasets an invocation or an evaluation listing names, as the data service (which owns them)
 * answers: the compute service keeps no copy, so a dataset deleted a moment ago counts as gone.
 */
export interface DatasetDirectory {
  /** Resolves when the org holds the dataset; NOT_FOUND naming the dataset otherwise. */
  requireDataset(orgId: string, datasetId: string): Promise<void>;
}
