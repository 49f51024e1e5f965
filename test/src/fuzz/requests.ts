import { getOption, type DescField, type DescMessage } from "@bufbuild/protobuf";
import type { Route } from "@hangar/gateway";
import { FieldBehavior, field_behavior } from "@hangar/shared/proto/google-api";
import { elementShape, plainValue, shapeOf } from "./field-shape";
import type { Mutation } from "./mutations";
import { dottedName, type FieldSite } from "./sites";

/**
 * Values of real resources and well-formed domain values, by field: the fuzzer fills a request's
 * path variables, required fields and any field this names with them, so that a mutation of one
 * field reaches the code behind the others' checks. Undefined: no such value (a generic one is used).
 */
export type FixtureValues = (route: Route, field: DescField) => unknown;

/** An HTTP request as sent: the raw path with its query string, and the raw body bytes, if any. */
export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly body: Buffer | undefined;
}

/** Stands in the body for the mutated value until the body is serialized. */
const SENTINEL = "\u0001fuzz-mutation\u0001";
const SENTINEL_JSON = JSON.stringify(SENTINEL);
/** A path variable without a fixture value: an id that exists nowhere. */
const MISSING_ID = "fuzz-missing-id";

/**
 * Builds an operation's request: the baseline (path variables, required and fixture-named fields,
 * valid-ish values), with `mutation` put at `site` when both are given.
 */
export function buildFuzzRequest(route: Route, fixtures: FixtureValues, site?: FieldSite, mutation?: Mutation): FuzzRequest {
  const at = site && mutation ? { site, mutation } : undefined;
  const path = renderPath(route, fixtures, at?.site.location === "path" ? at : undefined);
  const query = renderQuery(route, fixtures, at?.site.location === "query" ? at : undefined);
  const body = route.body ? renderBody(route, fixtures, at?.site.location === "body" ? at : undefined) : undefined;
  return { method: route.httpMethod, path: query === "" ? path : `${path}?${query}`, body };
}

type Placed = { site: FieldSite; mutation: Mutation };

function renderPath(route: Route, fixtures: FixtureValues, at: Placed | undefined): string {
  const { segments, variables } = route.template;
  const parts: string[] = [];
  for (let i = 0; i < segments.length; ) {
    const variable = variables.find((v) => v.start === i);
    if (variable === undefined) {
      const segment = segments[i]!;
      parts.push(segment.kind === "literal" ? segment.text : "x");
      i++;
      continue;
    }
    const mutated = at !== undefined && dottedName(at.site) === variable.name;
    parts.push(mutated ? at.mutation.text!()[0]! : encodeVariable(fixtureText(route, fixtures, leafField(route.method.input, variable.fieldPath)) ?? MISSING_ID, variable.end));
    i = variable.end ?? segments.length;
  }
  return "/" + parts.join("/");
}

/** A `{x}` variable is one segment (slashes encoded); a `{x=**}` one keeps its slashes. */
function encodeVariable(value: string, end: number | undefined): string {
  return end === undefined ? value.split("/").map(encodeURIComponent).join("/") : encodeURIComponent(value);
}

function renderQuery(route: Route, fixtures: FixtureValues, at: Placed | undefined): string {
  const pairs: string[] = [];
  const mutatedName = at ? dottedName(at.site) : undefined;
  if (route.body !== "*") {
    const taken = new Set([route.body, ...route.template.variables.map((v) => v.fieldPath[0])]);
    for (const field of route.method.input.fields) {
      if (taken.has(field.name) || field.name === mutatedName || shapeOf(field) === "object") continue;
      const value = fixtureText(route, fixtures, field) ?? (isRequired(field) ? String(plainValue(shapeOf(field), field)) : undefined);
      if (value !== undefined) pairs.push(`${field.name}=${encodeURIComponent(value)}`);
    }
  }
  if (at) for (const value of at.mutation.text!()) pairs.push(`${mutatedName}=${value}`);
  return pairs.join("&");
}

function renderBody(route: Route, fixtures: FixtureValues, at: Placed | undefined): Buffer {
  if (at && at.site.field === undefined) return at.mutation.json!();
  const input = route.method.input;
  const bodyField = route.body === "*" ? undefined : input.fields.find((f) => f.name === route.body)!;
  if (bodyField && shapeOf(bodyField) !== "object") {
    return at ? at.mutation.json!() : Buffer.from(JSON.stringify(fieldValue(route, fixtures, bodyField, true) ?? plainValue(shapeOf(bodyField), bodyField)));
  }
  const bound = new Set(route.template.variables.map((v) => v.fieldPath[0]!));
  const root = baselineMessage(route, fixtures, bodyField?.message ?? input, bodyField ? new Set() : bound);
  if (!at) return Buffer.from(JSON.stringify(root));
  let node = root;
  for (const parent of at.site.parents) node = childObject(route, fixtures, node, parent);
  node[at.site.field!.name] = SENTINEL;
  const [before, after] = JSON.stringify(root).split(SENTINEL_JSON) as [string, string];
  return Buffer.concat([Buffer.from(before), at.mutation.json!(), Buffer.from(after)]);
}

type JsonObject = Record<string, unknown>;

/** The object of a message field inside `node` (of a list: its first item), made from the baseline when absent. */
function childObject(route: Route, fixtures: FixtureValues, node: JsonObject, field: DescField): JsonObject {
  const make = () => baselineMessage(route, fixtures, field.message!, new Set());
  if (field.fieldKind === "list") {
    const items = Array.isArray(node[field.name]) ? (node[field.name] as JsonObject[]) : (node[field.name] = []);
    if (items.length === 0) items.push(make());
    return items[0]!;
  }
  if (typeof node[field.name] !== "object" || node[field.name] === null) node[field.name] = make();
  return node[field.name] as JsonObject;
}

/** A message's baseline: its REQUIRED fields and the fields the fixtures name, nested messages likewise. */
function baselineMessage(route: Route, fixtures: FixtureValues, desc: DescMessage, skip: ReadonlySet<string>, depth = 0): JsonObject {
  const out: JsonObject = {};
  for (const field of desc.fields) {
    if (skip.has(field.name)) continue;
    const value = fieldValue(route, fixtures, field, isRequired(field));
    if (value !== undefined) out[field.name] = value;
    else if (isRequired(field) && shapeOf(field) === "object" && depth < 3) out[field.name] = baselineMessage(route, fixtures, field.message!, new Set(), depth + 1);
  }
  return out;
}

/** The fixture value of a field (a list gets a one-item list), or a plain value when `required`. */
function fieldValue(route: Route, fixtures: FixtureValues, field: DescField, required: boolean): unknown {
  const fixture = fixtures(route, field);
  const shape = shapeOf(field);
  if (shape === "list" && field.fieldKind === "list") {
    if (fixture !== undefined) return Array.isArray(fixture) ? fixture : [fixture];
    return required ? [plainValue(elementShape(field), field)] : undefined;
  }
  if (fixture !== undefined) return fixture;
  return required && shape !== "object" ? plainValue(shape, field) : undefined;
}

function fixtureText(route: Route, fixtures: FixtureValues, field: DescField): string | undefined {
  const value = fixtures(route, field);
  return value === undefined ? undefined : String(value);
}

function leafField(input: DescMessage, fieldPath: readonly string[]): DescField {
  let desc: DescMessage | undefined = input;
  let field: DescField | undefined;
  for (const name of fieldPath) {
    field = desc?.fields.find((f) => f.name === name);
    desc = field?.message;
  }
  return field!;
}

function isRequired(field: DescField): boolean {
  return getOption(field, field_behavior).includes(FieldBehavior.REQUIRED);
}
