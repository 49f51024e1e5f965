import { createDataset, uploadFiles, type ApiClient } from "@hangar/test-harness";
import { ok } from "./invocation-fixtures";

/** Helpers shared by the metric end-to-end tests (metrics-api.e2e.ts, metrics-sdk.e2e.ts). */

/**
 * A session of `device` spanning [startNs, endNs] (a file anchored at startNs, declared through the
 * device's sessions); returns its id. `unique` names the dataset, file and session.
 */
export async function sessionSpanning(client: ApiClient, device: string, startNs: number, endNs: number, unique: (name: string) => string): Promise<string> {
  const datasetId = await createDataset(client, unique("metrics"));
  const path = `${unique("log")}.mcap`;
  await uploadFiles(client, datasetId, { [path]: "bytes" });
  const fileId = ok(await client.get(`/v1/files/record/path/${encodeURIComponent(path)}/association/${datasetId}`)).file_id;
  const declared = ok(
    await client.post(`/v1/devices/id/${encodeURIComponent(device)}/sessions`, {
      sessions: [{ name: unique("run"), anchor_ns: startNs, files: [{ file_id: fileId, min_file_timestamp_ns: 0, max_file_timestamp_ns: endNs - startNs }] }],
    }),
  );
  const created = declared.responses[0].data;
  expect([created.min_timestamp_ns, created.max_timestamp_ns]).toEqual([startNs, endNs]);
  return created.session_id;
}

/** Whole seconds in ns are exact JSON numbers (multiples of 512 below 2**63). */
export const at = (iso: string): number => Date.parse(iso) * 1_000_000;
