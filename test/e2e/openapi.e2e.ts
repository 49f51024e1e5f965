import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { DescMessage } from "@bufbuild/protobuf";
import { REPO_ROOT, startTestPlatform, type TestPlatform } from "@hangar/test-harness";

// GET /openapi.json: the OpenAPI 3.1 description of the gateway's API, derived from the same route
// table the gateway routes by (the protos' google.api.http bindings), served without a token.

let t: TestPlatform;
let doc: any;

beforeAll(async () => {
  t = await startTestPlatform();
  const res = await fetch(`${t.url}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json");
  doc = await res.json();
});
afterAll(() => t?.close());

/** `/v1/files/{file_id}` for `/v1/files/{file_id}`; OpenAPI has no `{path=**}` form. */
const openApiPath = (template: string) => template.replace(/\{([^}=]+)(=[^}]*)?\}/g, "{$1}");

test("is a valid OpenAPI 3.1 document (swagger-parser, through the script CI runs)", async () => {
  expect(doc.openapi).toBe("3.1.0");
  const dir = await mkdtemp(path.join(tmpdir(), "hangar-openapi-"));
  try {
    await writeFile(path.join(dir, "openapi.json"), JSON.stringify(doc));
    // The validator is an ES module that jest's CommonJS runtime cannot load: it runs as CI runs it.
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(REPO_ROOT, "scripts/validate-openapi.mjs"), path.join(dir, "openapi.json")]);
    expect(stdout).toContain("valid OpenAPI 3.1.0");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("describes every route of the gateway's table, with each path variable as a required path parameter", () => {
  const routes = t.platform.gateway.routes;
  expect(routes.length).toBeGreaterThan(100);
  for (const route of routes) {
    const operation = doc.paths[openApiPath(route.template.template)]?.[route.httpMethod.toLowerCase()];
    expect({ route: `${route.httpMethod} ${route.template.template}`, summary: operation?.summary }).toEqual({
      route: `${route.httpMethod} ${route.template.template}`,
      summary: `${route.service.typeName}.${route.method.name}`,
    });
    const pathParameters = operation.parameters.filter((p: any) => p.in === "path");
    expect(pathParameters.map((p: any) => [p.name, p.required])).toEqual(route.template.variables.map((v) => [v.name, true]));
  }
  const operations = Object.values(doc.paths).flatMap((item: any) => Object.keys(item));
  // The route table's operations, plus the gateway's own /healthz, /readyz, /openapi.json and /metrics.
  expect(operations).toHaveLength(routes.length + 4);
  expect(new Set(Object.values(doc.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId))).size).toBe(routes.length + 4);
});

test("schemas use the wire's forms: proto (snake_case) field names, int64 as integer, Struct as object, Timestamp as date-time", () => {
  const dataset = doc.components.schemas["hangar.data.v1.Dataset"];
  expect(dataset.properties.service_record_version).toEqual({ type: "integer", format: "int64" });
  expect(dataset.properties.metadata).toEqual({ type: "object" });
  expect(dataset.properties.created).toEqual({ type: ["string", "null"], format: "date-time" });
  expect(dataset.properties.tags).toEqual({ type: "array", items: { type: "string" } });
  // Every component's properties are its message's proto field names (the wire's), not JSON names.
  const messages = new Map<string, DescMessage>();
  const visit = (desc: DescMessage) => {
    if (messages.has(desc.typeName)) return;
    messages.set(desc.typeName, desc);
    for (const field of desc.fields) if (field.message) visit(field.message);
  };
  for (const route of t.platform.gateway.routes) [route.method.input, route.method.output].forEach(visit);
  for (const [name, schema] of Object.entries<any>(doc.components.schemas)) {
    if (name === "ErrorEnvelope") continue;
    // A json_inline_oneof message (QueryResult) is written as one of its members, so it is described as one.
    if (schema.oneOf) {
      expect({ name, members: schema.oneOf.length }).toEqual({ name, members: messages.get(name)!.fields.length });
      continue;
    }
    expect({ name, properties: Object.keys(schema.properties) }).toEqual({ name, properties: messages.get(name)!.fields.map((f) => f.name) });
  }
});

test("requests: a body for bindings with one, query parameters for the rest, REQUIRED fields and declared limits", () => {
  const create = doc.paths["/v1/datasets"].post;
  expect(create.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/hangar.data.v1.CreateDatasetRequest" });
  const get = doc.paths["/v1/datasets/{dataset_id}"].get;
  expect(get.requestBody).toBeUndefined();
  expect(get.parameters[0]).toEqual({ in: "path", name: "dataset_id", required: true, schema: { type: "string", maxLength: 1000 } });
  const createAction = doc.components.schemas["hangar.compute.v1.CreateActionRequest"];
  expect(createAction.required).toContain("name");
});

test("responses: `data` on success, the error envelope otherwise, Retry-After on a 503", () => {
  const get = doc.paths["/v1/datasets/{dataset_id}"].get;
  expect(get.responses["200"].content["application/json"].schema).toEqual({
    type: "object",
    required: ["data"],
    properties: { data: { anyOf: [{ $ref: "#/components/schemas/hangar.data.v1.Dataset" }, { type: "null" }] } },
  });
  expect(get.responses.default.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ErrorEnvelope" });
  expect(get.responses["503"].headers["Retry-After"]).toEqual({ schema: { type: "integer" } });
  expect(doc.components.schemas.ErrorEnvelope.properties.error.required).toEqual(["error_code", "message", "stack_trace"]);
});

test("the bearer scheme applies to every route but the gateway's own, and every operation takes the org and version headers", () => {
  expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
  expect(doc.security).toEqual([{ bearer: [] }]);
  expect(doc.paths["/healthz"].get.security).toEqual([]);
  expect(doc.paths["/openapi.json"].get.security).toEqual([]);
  // The CLI sign-in's token-less operations (hangar.common.v1.anonymous); the others keep the document's bearer.
  expect(doc.paths["/v1/tokens/requests"].post.security).toEqual([]);
  expect(doc.paths["/v1/tokens/requests/exchange"].post.security).toEqual([]);
  expect(doc.paths["/v1/tokens/requests/approve"].post.security).toBeUndefined();
  expect(doc.components.parameters.OrgId).toMatchObject({ in: "header", name: "X-Service-Org-Id", required: false });
  expect(doc.components.parameters.ApiVersion).toMatchObject({ in: "header", name: "X-Roboto-Api-Version", required: false });
  for (const route of t.platform.gateway.routes) {
    const refs = doc.paths[openApiPath(route.template.template)][route.httpMethod.toLowerCase()].parameters.map((p: any) => p.$ref).filter(Boolean);
    expect(refs).toEqual(expect.arrayContaining(["#/components/parameters/OrgId", "#/components/parameters/ApiVersion"]));
  }
});
