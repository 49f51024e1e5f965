import type { ApiVersionDate } from "./api-version";

/**
 * One dated change of the API: from `since` on, callers get the current shape; a caller naming an
 * older version gets what `change` describes instead.
 * - `pluck`: the RPC's `data` is a list of records; older callers receive each record's `field`.
 * - `unwrap`: older callers receive the response's `field` as `data`: a record (the shape the RPC
 *   answered before it answered a batch envelope) or a list (before it answered a page).
 * - `hide`: records of message type `record` whose `field` equals `equals` do not exist for older
 *   callers: lists leave them out, a response that is one of them is a 404. It applies to every
 *   route whose response holds that record type, found from the descriptors.
 * - `reroute`: older callers reach `olderRpc` on the same HTTP binding as `rpc` (a legacy shape kept
 *   by its own RPC; the binding is declared on both and served by version).
 * - `request` (the request side): top-level request fields of `rpc` that changed at `since`. An
 *   older caller may not set `introduced` ones; a caller at `since` or later may not set `retired`
 *   ones and must set `required` ones. Each refusal is a 400 naming the field, before the RPC runs.
 */
export type DatedChange = { since: ApiVersionDate; summary: string } & (
  | { change: "pluck"; rpc: string; field: string }
  | { change: "unwrap"; rpc: string; field: string }
  | { change: "hide"; record: string; field: string; equals: string }
  | { change: "reroute"; rpc: string; olderRpc: string }
  | { change: "request"; rpc: string; introduced: string[]; retired: string[]; required: string[] }
);

/**
 * The one table of dated changes (sdk-0.62-routes.md, "Global changes"), for the areas this server
 * implements. Every version translation the gateway does is a row here: handlers never see the
 * caller's version. Dated changes of areas not built yet (threads 2026-09-30,
 * Views 2026-10-06) get their row with their area.
 */
export const DATED_CHANGES: readonly DatedChange[] = [
  {
    since: "2026-07-05",
    summary: "upload progress answers {uri, file_id} pairs; older clients get the bare list of file ids",
    change: "pluck",
    rpc: "hangar.data.v1.DataService.ReportUploadProgress",
    field: "file_id",
  },
  {
    since: "2026-08-27",
    summary: "triggers may be of the 0.62 model (engine 'v2'); older clients know only legacy triggers: lists drop the others, reading one is a 404",
    change: "hide",
    record: "hangar.compute.v1.Trigger",
    field: "engine",
    equals: "v2",
  },
  {
    since: "2026-10-02",
    summary: "file records may be links (fs_type 'link'); older clients never see one: lists drop them, direct reads are 404",
    change: "hide",
    record: "hangar.data.v1.File",
    field: "fs_type",
    equals: "link",
  },
  {
    since: "2026-10-05",
    summary: "adding files to a session answers a batch envelope; older clients get the session record",
    change: "unwrap",
    rpc: "hangar.data.v1.DataService.AddSessionFiles",
    field: "session",
  },
  {
    since: "2026-10-05",
    summary: "removing files from a session answers a batch envelope; older clients get the session record",
    change: "unwrap",
    rpc: "hangar.data.v1.DataService.RemoveSessionFiles",
    field: "session",
  },
  {
    since: "2026-10-05",
    summary:
      "read-plan partitions carry `window` (and `data_range`, `fs_node_id`); older clients reach the RPC whose partitions carry `extent`, which refuses (400) a plan that needs a partition window or packs several parts into one file",
    change: "reroute",
    rpc: "hangar.data.v1.DataService.ResolveReadPlan",
    olderRpc: "hangar.data.v1.DataService.ResolveExtentReadPlan",
  },
  {
    since: "2026-10-05",
    summary: "publish_metrics answers a batch envelope, one element per entry; older clients reach the RPC that answers {succeeded, failed}",
    change: "reroute",
    rpc: "hangar.data.v1.DataService.PublishMetrics",
    olderRpc: "hangar.data.v1.DataService.PublishMetricsByOutcome",
  },
  {
    since: "2026-08-10",
    summary: "dataset tags answer a page {items, next_token}; older clients get the bare list of tags",
    change: "unwrap",
    rpc: "hangar.data.v1.DataService.ListDatasetTags",
    field: "items",
  },
  {
    since: "2026-08-10",
    summary: "event tags answer a page {items, next_token}; older clients get the bare list of tags",
    change: "unwrap",
    rpc: "hangar.data.v1.DataService.ListRobotEventTags",
    field: "items",
  },
  {
    since: "2026-08-10",
    summary: "file tags answer a page {items, next_token}; older clients get the bare list of tags",
    change: "unwrap",
    rpc: "hangar.data.v1.DataService.ListFileTags",
    field: "items",
  },
  // --- request side (client) ---
  {
    since: "2026-08-27",
    summary:
      "create_trigger takes the 0.62 body (fires_on, targets); the legacy body (action columns, causes, for_each) only under older versions, which cannot send the 0.62 body (its trigger would be hidden from them)",
    change: "request",
    rpc: "hangar.compute.v1.ComputeService.CreateTrigger",
    introduced: ["fires_on", "targets"],
    retired: [
      "action_name",
      "action_digest",
      "action_owner_id",
      "for_each",
      "required_inputs",
      "additional_inputs",
      "causes",
      "compute_requirements",
      "container_parameters",
      "compute_requirement_overrides",
      "container_parameter_overrides",
      "parameter_values",
      "timeout",
    ],
    required: ["fires_on", "targets"],
  },
];
