import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  DataService,
  FileSchema,
  GetFileResponseSchema,
  QueryDatasetFilesResponseSchema,
  ReportUploadProgressResponseSchema,
} from "@hangar/shared/proto/data";
import { ComputeService, CreateTriggerRequestSchema } from "@hangar/shared/proto/compute";
import { buildRouteTable, type Route } from "../routes";
import { parsePathTemplate } from "../pattern";
import { API_VERSIONS, LATEST_API_VERSION, readApiVersion, versionOf } from "./api-version";
import { applyDatedChanges, checkRequest, projectResponse, routeForVersion, rpcName, withRerouteTwins } from "./route-versions";
import { DATED_CHANGES, type DatedChange } from "./version-table";

const { routes } = buildRouteTable([DataService]);
/** The reroute rows: a table without them has twin bindings, which clash. */
const REROUTES = DATED_CHANGES.filter((c) => c.change === "reroute");
/** A route table holding `changes` (and the reroute rows, so twins fold). */
const tableWith = (services: Parameters<typeof buildRouteTable>[0], changes: DatedChange[]) => buildRouteTable(services, [...new Set([...REROUTES, ...changes])]);
const routeOf = (rpc: string, httpMethod?: string): Route => routes.find((r) => r.method.name === rpc && (!httpMethod || r.httpMethod === httpMethod))!;
const file = (fsType: string, fileId: string) => create(FileSchema, { fileId, fsType });

describe("readApiVersion", () => {
  test.each([
    [undefined, LATEST_API_VERSION],
    ["2026-10-06", LATEST_API_VERSION],
    ["2026-05-20", versionOf("2026-05-20")],
    [" 2025-01-01 ", 0],
  ])("%p reads as version %p", (header, version) => {
    expect(readApiVersion(header === undefined ? {} : { "x-roboto-api-version": header })).toBe(version);
  });

  test.each([["2026-07-04"], ["2026-7-5"], [""], ["latest"]])("%p is a 400 naming the header", (header) => {
    expect(() => readApiVersion({ "x-roboto-api-version": header })).toThrow(expect.objectContaining({ code: Code.InvalidArgument, rawMessage: expect.stringMatching(/^X-Roboto-Api-Version: /) }));
  });

  test("the known versions are sorted and end at the newest client's", () => {
    expect([...API_VERSIONS]).toEqual([...API_VERSIONS].sort());
    expect(API_VERSIONS[LATEST_API_VERSION]).toBe("2026-10-06");
  });
});

describe("the dated-change table", () => {
  test("every row touches some route (a misspelt RPC or record would touch none); untouched routes carry nothing", () => {
    for (const change of DATED_CHANGES) {
      const touchedBy = (r: Route) => (change.change === "reroute" ? r.versions?.reroute !== undefined : (r.versions?.projections.length ?? 0) > 0 || r.versions?.requests !== undefined);
      const touched = tableWith([DataService, ComputeService], [change]).routes.filter(touchedBy).map(rpcName);
      expect({ change: change.summary, touched: touched.length > 0 }).toEqual({ change: change.summary, touched: true });
    }
    expect(routeOf("GetDataset").versions).toBeUndefined();
    expect(routeOf("ReportUploadProgress").versions?.projections).toHaveLength(1);
  });

  test("pluck: older callers get each record's field; newer ones the message", () => {
    const route = routeOf("ReportUploadProgress");
    const message = create(ReportUploadProgressResponseSchema, { items: [{ uri: "s3://b/k", fileId: "fl_1" }, { uri: "s3://b/l", fileId: "fl_2" }] });
    expect(projectResponse(route, versionOf("2026-05-20"), message)).toBe('["fl_1","fl_2"]');
    expect(projectResponse(route, versionOf("2026-07-05"), message)).toBeUndefined();
  });

  test("hide: lists drop matching records for older callers; a response that is one is a 404", () => {
    const list = routeOf("QueryDatasetFiles");
    const page = () => create(QueryDatasetFilesResponseSchema, { items: [file("file", "fl_1"), file("link", "fl_2"), file("file", "fl_3")] });
    const older = page();
    expect(projectResponse(list, versionOf("2026-09-30"), older)).toBeUndefined();
    expect(older.items.map((f) => f.fileId)).toEqual(["fl_1", "fl_3"]);
    const newer = page();
    projectResponse(list, versionOf("2026-10-02"), newer);
    expect(newer.items.map((f) => f.fileId)).toEqual(["fl_1", "fl_2", "fl_3"]);
    const get = routeOf("GetFile");
    const link = create(GetFileResponseSchema, { file: file("link", "fl_2") });
    expect(() => projectResponse(get, versionOf("2026-09-30"), link)).toThrow(new ConnectError("file not found: it needs API version 2026-10-02 or later", Code.NotFound));
    expect(projectResponse(get, versionOf("2026-09-30"), create(GetFileResponseSchema, { file: file("file", "fl_1") }))).toBeUndefined();
  });
});

describe("reroute", () => {
  /** Two RPCs bound to the same method and path, as a legacy shape and its successor would be. */
  const shared = (rpc: string): Route => ({ ...routeOf(rpc), httpMethod: "GET", template: parsePathTemplate("/v1/things/{dataset_id}"), versions: undefined });
  const change: DatedChange = { since: "2026-08-27", summary: "test", change: "reroute", rpc: "hangar.data.v1.DataService.GetDataset", olderRpc: "hangar.data.v1.DataService.DeleteDataset" };

  test("the older twin is served only through its successor, below the change's date", () => {
    const newer = shared("GetDataset");
    const older = shared("DeleteDataset");
    const served = applyDatedChanges([older, newer], [change]);
    expect(served).toEqual([newer]);
    expect(routeForVersion(newer, versionOf("2026-08-10")).method.name).toBe("DeleteDataset");
    expect(routeForVersion(newer, versionOf("2026-08-27")).method.name).toBe("GetDataset");
    expect(routeForVersion(newer, LATEST_API_VERSION)).toBe(newer);
  });

  test("the read plan: callers before 2026-10-05 reach the RPC whose partitions carry `extent`", () => {
    const plan = routeOf("ResolveReadPlan");
    expect(routeForVersion(plan, versionOf("2026-10-02")).method.name).toBe("ResolveExtentReadPlan");
    expect(routeForVersion(plan, versionOf("2026-10-05")).method.name).toBe("ResolveReadPlan");
  });

  test("the table lists one route a binding: the older twin only through its successor", () => {
    const bindings = routes.map((r) => `${r.httpMethod} ${r.template.template}`);
    expect(new Set(bindings).size).toBe(bindings.length);
    expect(routes.some((r) => r.method.name === "ResolveExtentReadPlan")).toBe(false);
    expect(withRerouteTwins(routeOf("ResolveReadPlan")).map((r) => r.method.name)).toEqual(["ResolveReadPlan", "ResolveExtentReadPlan"]);
  });

  test("without a twin on the same binding nothing is folded", () => {
    const served = applyDatedChanges([shared("GetDataset"), routeOf("DeleteDataset")], [change]);
    expect(served).toHaveLength(2);
    expect(served.every((r) => r.versions === undefined)).toBe(true);
  });
});

describe("request: dated request fields", () => {
  const { routes: computeRoutes } = buildRouteTable([ComputeService]);
  const createTrigger = computeRoutes.find((r) => r.method.name === "CreateTrigger")!;
  const legacy = () => create(CreateTriggerRequestSchema, { name: "t", actionName: "a", forEach: "dataset", requiredInputs: ["*"] });
  const model = () => create(CreateTriggerRequestSchema, { name: "t", firesOn: { kind: { case: "stringValue", value: "x" } }, targets: { kind: { case: "stringValue", value: "y" } } });
  const refusal = (field: string) => expect.objectContaining({ code: Code.InvalidArgument, rawMessage: expect.stringMatching(new RegExp(`^${field}: `)) });

  test("before the date the legacy body passes and the 0.62 fields are refused, naming the field", () => {
    expect(() => checkRequest(createTrigger, versionOf("2026-08-10"), legacy())).not.toThrow();
    expect(() => checkRequest(createTrigger, versionOf("2026-08-10"), model())).toThrow(refusal("fires_on"));
  });

  test("from the date the legacy fields are refused and the 0.62 ones required", () => {
    expect(() => checkRequest(createTrigger, versionOf("2026-08-27"), model())).not.toThrow();
    expect(() => checkRequest(createTrigger, versionOf("2026-08-27"), legacy())).toThrow(refusal("action_name"));
    expect(() => checkRequest(createTrigger, LATEST_API_VERSION, create(CreateTriggerRequestSchema, { name: "t" }))).toThrow(refusal("fires_on"));
  });

  test("a JSON null in a Value field counts as not given", () => {
    const nulls = create(CreateTriggerRequestSchema, { name: "t", actionName: "a", firesOn: { kind: { case: "nullValue", value: 0 } } });
    expect(() => checkRequest(createTrigger, versionOf("2026-08-10"), nulls)).not.toThrow();
  });

  test("a row naming a field the request lacks fails at start-up", () => {
    const typo: DatedChange = { since: "2026-08-27", summary: "typo", change: "request", rpc: "hangar.compute.v1.ComputeService.CreateTrigger", introduced: ["fire_on"], retired: [], required: [] };
    expect(() => buildRouteTable([ComputeService], [typo])).toThrow("has no field 'fire_on'");
  });
});

describe("unwrap of a repeated field", () => {
  test("older callers get the bare list a paged response holds", () => {
    const change: DatedChange = { since: "2026-08-10", summary: "test", change: "unwrap", rpc: "hangar.data.v1.DataService.QueryDatasetFiles", field: "items" };
    const [route] = tableWith([DataService], [change]).routes.filter((r) => r.method.name === "QueryDatasetFiles");
    const page = create(QueryDatasetFilesResponseSchema, { items: [file("file", "fl_1")], nextToken: "t" });
    expect(JSON.parse(projectResponse(route!, versionOf("2026-07-05"), page)!)).toEqual([expect.objectContaining({ file_id: "fl_1" })]);
    expect(projectResponse(route!, versionOf("2026-08-10"), page)).toBeUndefined();
  });

  test("a field that is neither a message nor a list fails at start-up", () => {
    const change: DatedChange = { since: "2026-08-10", summary: "test", change: "unwrap", rpc: "hangar.data.v1.DataService.QueryDatasetFiles", field: "next_token" };
    expect(() => tableWith([DataService], [change])).toThrow("is neither");
  });
});
