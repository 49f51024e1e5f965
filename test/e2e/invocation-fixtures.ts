import type { ApiClient, ApiResponse, TestPlatform } from "@hangar/test-harness";

/** Helpers shared by the invocation end-to-end tests (invocations.e2e.ts, invocation-stats.e2e.ts). */

export const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
export const DURATION = expect.stringMatching(/^PT\d+(\.\d+)?S$/);

/** InvocationStatus values by name (wire-notes.md). */
export const Status = { Queued: 0, Scheduled: 1, Downloading: 2, Processing: 3, Uploading: 4, Completed: 5, Cancelled: 997, Failed: 998, Deadly: 999 } as const;
export type StatusName = keyof typeof Status;

let counter = 0;
/** A name no other call in this test file returns. */
export const unique = (prefix: string): string => `${prefix}-${++counter}`;

/** Asserts a 200 and returns `data`; the body is part of the assertion so that a failure shows the error. */
export function ok(res: ApiResponse): any {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined });
  return res.body.data;
}

/** Creates an action (through create_action) with a required `threshold` and an optional `mode` parameter. */
export async function createAction(client: ApiClient, extra: Record<string, unknown> = {}): Promise<any> {
  return ok(
    await client.post("/v1/actions", {
      name: unique("act"),
      uri: "registry.example.com/detector:1",
      parameters: [
        { name: "threshold", required: true, description: "cut-off" },
        { name: "mode", default: "fast" },
      ],
      ...extra,
    }),
  );
}

/** The smallest valid invoke body on a dataset. */
export function invokeBody(datasetId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    data_source_id: datasetId,
    data_source_type: "Dataset",
    input_data: ["**/*.bag"],
    invocation_source: "Manual",
    parameter_values: { threshold: "0.5" },
    ...extra,
  };
}

/** Invokes an action and returns the invocation. */
export async function invoke(client: ApiClient, datasetId: string, name: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>): Promise<any> {
  return ok(await client.post(`/v1/actions/${name}/invoke`, invokeBody(datasetId, extra), headers));
}

/** The path of an invocation, or of an operation below it. */
export const invocationPath = (id: string, rest = ""): string => `/v1/actions/invocations/${id}${rest}`;

export function setStatus(client: ApiClient, id: string, status: StatusName, detail = `now ${status}`): Promise<ApiResponse> {
  return client.post(invocationPath(id, "/status"), { status: Status[status], detail });
}

/** Moves an invocation through `statuses` in order, asserting each move succeeds; returns the last record. */
export async function walk(client: ApiClient, id: string, ...statuses: StatusName[]): Promise<any> {
  let record: any;
  for (const status of statuses) record = ok(await setStatus(client, id, status));
  return record;
}

/**
 * Moves an invocation's start `minutes` into the past, as if it had been running that long:
 * timeouts are whole minutes, which a test should not wait for.
 */
export async function backdateStart(t: TestPlatform, invocationId: string, minutes: number): Promise<void> {
  const updated = await t.platform.services.compute.orm.em
    .fork()
    .getConnection()
    .execute(`update invocations set started = started - ? * interval '1 minute' where invocation_id = ? and started is not null`, [minutes, invocationId], "run");
  expect(updated).toMatchObject({ affectedRows: 1 });
}
