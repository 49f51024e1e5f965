import { buildRouteTable, SERVICES, type Route } from "@hangar/gateway";
import { generateFuzzCases, mutationsAt, type FuzzCase } from "./cases";
import { judgeOutcome } from "./judge";
import { MUTATION_CLASSES, type Mutation } from "./mutations";
import { buildFuzzRequest } from "./requests";
import { routeSites, type FieldSite } from "./sites";

const { routes } = buildRouteTable(Object.values(SERVICES));
const cases = generateFuzzCases(routes);

function route(method: string, template: string): Route {
  const found = routes.find((r) => r.httpMethod === method && r.template.template === template);
  if (!found) throw new Error(`no route ${method} ${template}`);
  return found;
}

function site(r: Route, label: string): FieldSite {
  const found = routeSites(r).find((s) => s.label === label);
  if (!found) throw new Error(`no site ${label}`);
  return found;
}

function mutation(s: FieldSite, name: string): Mutation {
  const found = MUTATION_CLASSES.flatMap((c) => mutationsAt(s, c, true)).find((m) => m.name === name);
  if (!found) throw new Error(`no mutation ${name}`);
  return found;
}

const key = (c: Pick<FuzzCase, "operation" | "target" | "mutationClass">) => `${c.operation} ${c.target} ${c.mutationClass}`;

describe("generateFuzzCases", () => {
  it("sends every operation of the route table its baseline", () => {
    const baselines = cases.filter((c) => c.mutationClass === "baseline").map((c) => c.operation);
    expect(baselines).toEqual(routes.map((r) => `${r.httpMethod} ${r.template.template}`));
  });

  it("gives every site of every operation each mutation class that applies to it", () => {
    const sent = new Set(cases.map(key));
    const missing: string[] = [];
    for (const r of routes) {
      const operation = `${r.httpMethod} ${r.template.template}`;
      for (const s of routeSites(r)) {
        const pageToken = ["page_token", "after", "last_read"].includes(s.field?.name ?? "");
        for (const mutationClass of MUTATION_CLASSES) {
          const entry = key({ operation, target: s.label, mutationClass });
          if (mutationsAt(s, mutationClass, pageToken).length > 0 && !sent.has(entry)) missing.push(entry);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("covers body fields, nested fields, list items, path variables, query parameters and whole bodies", () => {
    const targets = new Set(cases.map((c) => `${c.operation} ${c.target}`));
    expect([
      "PUT /v1/datasets/{dataset_id} {dataset_id}",
      "PUT /v1/datasets/{dataset_id} metadata_changeset.put_tags",
      "PUT /v1/datasets/{dataset_id}/files/move operations[0].node_id",
      "POST /v1/datasets/query limit",
      "GET /v1/devices/org/{org_id} page_token",
      "POST /v1/datasets (body)",
    ].filter((t) => !targets.has(t))).toEqual([]);
  });

  it("samples the same mutations for the same seed, and others for another seed", () => {
    const names = (list: FuzzCase[]) => list.map((c) => `${key(c)} ${c.mutation}`);
    expect(names(generateFuzzCases(routes))).toEqual(names(cases));
    expect(names(generateFuzzCases(routes, { seed: 10 }))).not.toEqual(names(cases));
  });
});

describe("buildFuzzRequest", () => {
  const fixtures = (_r: Route, field: { name: string }) => ({ dataset_id: "ds_1", org_id: "og_1" })[field.name];

  it("fills path variables from the fixtures and puts a body mutation at its nested place", () => {
    const r = route("PUT", "/v1/datasets/{dataset_id}");
    const request = buildFuzzRequest(r, fixtures, site(r, "metadata_changeset.put_tags"), mutation(site(r, "metadata_changeset.put_tags"), '["\\u0000"]'));
    expect({ ...request, body: request.body?.toString() }).toEqual({
      method: "PUT",
      path: "/v1/datasets/ds_1",
      body: '{"metadata_changeset":{"put_tags":["\\u0000"]}}',
    });
  });

  it("keeps bytes that are not UTF-8 as they are", () => {
    const r = route("POST", "/v1/datasets");
    const body = buildFuzzRequest(r, fixtures, site(r, "description"), mutation(site(r, "description"), "0xFF 0xFE")).body!;
    expect(body.includes(Buffer.from([0x22, 0x61, 0xff, 0xfe, 0x62, 0x22]))).toBe(true);
  });

  it("writes a body binding's field as the whole body", () => {
    const r = route("POST", "/v1/datasets/query");
    const request = buildFuzzRequest(r, fixtures, site(r, "limit"), mutation(site(r, "limit"), "1e400"));
    expect(request.body?.toString()).toBe('{"limit":1e400}');
  });

  it("puts a path mutation raw into its segment, and a query mutation into the query string", () => {
    const r = route("GET", "/v1/devices/org/{org_id}");
    expect(buildFuzzRequest(r, fixtures, site(r, "{org_id}"), mutation(site(r, "{org_id}"), "%FF")).path).toBe("/v1/devices/org/%FF");
    expect(buildFuzzRequest(r, fixtures, site(r, "page_size"), mutation(site(r, "page_size"), "repeated")).path).toBe(
      "/v1/devices/org/og_1?page_size=1&page_size=2",
    );
  });

  it("gives a path variable without a fixture an id that exists nowhere", () => {
    expect(buildFuzzRequest(route("GET", "/v1/devices/id/{device_id}"), fixtures).path).toBe("/v1/devices/id/fuzz-missing-id");
  });
});

describe("judgeOutcome", () => {
  const fuzzCase = cases[0]!;
  const answer = (status: number | undefined, body: unknown, failure?: string) =>
    judgeOutcome({ fuzzCase, status, body: typeof body === "string" ? body : JSON.stringify(body), failure, elapsedMs: 1 });
  const envelope = (status: number, extra: object = {}) => ({ error: { error_code: status, message: "name: bad", stack_trace: "", ...extra } });

  it("accepts a 2xx with the data envelope and a 4xx with the error envelope", () => {
    expect(answer(200, { data: null })).toBeUndefined();
    expect(answer(400, envelope(400))).toBeUndefined();
    expect(answer(404, envelope(404))).toBeUndefined();
  });

  it.each([
    ["a 5xx with the envelope", 500, envelope(500), 500],
    ["a 503", 503, envelope(503), 503],
    ["a 4xx without a body", 431, "", 431],
    ["a 4xx whose error_code differs", 400, envelope(404), 400],
    ["a 4xx with a stack trace", 400, envelope(400, { stack_trace: "at x" }), 400],
    ["a 4xx with another key", 400, envelope(400, { detail: 1 }), 400],
    ["a 2xx without the data envelope", 200, { items: [] }, 200],
    ["a hang", undefined, "", "no answer within the timeout"],
  ])("refuses %s", (_what, status, body, reported) => {
    const failure = status === undefined ? "no answer within the timeout" : undefined;
    expect(answer(status, body, failure)?.status).toBe(reported);
  });
});
